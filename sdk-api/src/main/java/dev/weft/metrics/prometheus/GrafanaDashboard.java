package dev.weft.metrics.prometheus;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Grafana dashboard (JSON model, schema 39) for one run's {@code weft_*} metrics, selected by the
 * {@code run} label. The data source is the variable {@code DS_PROMETHEUS}, so the same JSON imports
 * anywhere and can be shipped in a ConfigMap (label {@code grafana_dashboard: "1"} for the sidecar).
 */
public final class GrafanaDashboard {
  public static final String FILE = "grafana-dashboard.json";
  private static final ObjectMapper JSON = Json.PRETTY;

  private GrafanaDashboard() {}

  /** The dashboard for {@code spec}'s run. */
  public static String json(TrainingSpec spec) { return json(spec.name()); }

  public static String json(String run) {
    ObjectNode d = JSON.createObjectNode();
    d.put("title", "Weft: " + run);
    d.put("uid", ("weft-" + run).length() > 40 ? ("weft-" + run).substring(0, 40) : "weft-" + run);
    d.put("schemaVersion", 39);
    d.put("refresh", "10s");
    d.putArray("tags").add("weft");
    d.putObject("time").put("from", "now-1h").put("to", "now");
    ArrayNode vars = d.putObject("templating").putArray("list");
    vars.addObject().put("name", "DS_PROMETHEUS").put("type", "datasource").put("query", "prometheus").put("label", "Prometheus");
    vars.addObject().put("name", "run").put("type", "constant").put("query", run).put("hide", 2);
    String sel = "{run=\"$run\"}";
    ArrayNode panels = d.putArray("panels");
    int[] pos = {0};
    panel(panels, pos, "Loss", "none", "weft_loss" + sel, "rank {{rank}}");
    panel(panels, pos, "Learning rate", "none", "weft_learning_rate" + sel, "rank {{rank}}");
    panel(panels, pos, "Gradient norm", "none", "weft_grad_norm" + sel, "rank {{rank}}");
    panel(panels, pos, "Tokens / s", "short", "weft_tokens_per_second{run=\"$run\",rank=\"0\"}", "tokens/s");
    panel(panels, pos, "Step time by phase", "s",
        "sum by (phase) (rate(weft_step_time_seconds_total" + sel + "[1m])) / scalar(sum(rate(weft_steps_total" + sel + "[1m])))",
        "{{phase}}");
    panel(panels, pos, "MFU", "percentunit", "weft_mfu" + sel, "rank {{rank}}");
    panel(panels, pos, "Training state memory", "bytes", "weft_memory_bytes" + sel, "rank {{rank}} {{kind}}");
    panel(panels, pos, "Peak RSS", "bytes", "weft_peak_rss_bytes" + sel, "rank {{rank}}");
    panel(panels, pos, "Loss scale", "none", "weft_loss_scale" + sel, "rank {{rank}}");
    panel(panels, pos, "Skipped steps", "short", "weft_skipped_steps_total" + sel, "rank {{rank}}");
    panel(panels, pos, "Checkpoint save time (p90)", "s",
        "histogram_quantile(0.9, sum by (le) (rate(weft_checkpoint_save_seconds_bucket" + sel + "[10m])))", "p90");
    panel(panels, pos, "Restarts and world size", "short", "weft_restarts" + sel, "restarts");
    ((ObjectNode) panels.get(panels.size() - 1)).withArray("targets").addObject()
        .put("refId", "B").put("expr", "max(weft_world_size" + sel + ")").put("legendFormat", "world size")
        .putObject("datasource").put("type", "prometheus").put("uid", "${DS_PROMETHEUS}");
    panel(panels, pos, "JVM heap used", "bytes",
        "sum by (instance) (jvm_memory_used_bytes{area=\"heap\"} * on(instance) group_left weft_run_info" + sel + ")",
        "{{instance}}");
    try {
      return JSON.writeValueAsString(d);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes {@code RUN_DIR/grafana-dashboard.json}. */
  public static Path write(Path runDir, TrainingSpec spec) {
    try {
      Files.createDirectories(runDir);
      return Files.writeString(runDir.resolve(FILE), json(spec));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + FILE + " into " + runDir, e);
    }
  }

  private static void panel(ArrayNode panels, int[] pos, String title, String unit, String expr, String legend) {
    int i = pos[0]++;
    ObjectNode p = panels.addObject();
    p.put("id", i + 1).put("type", "timeseries").put("title", title);
    p.putObject("datasource").put("type", "prometheus").put("uid", "${DS_PROMETHEUS}");
    p.putObject("gridPos").put("h", 8).put("w", 12).put("x", (i % 2) * 12).put("y", (i / 2) * 8);
    p.putObject("fieldConfig").putObject("defaults").put("unit", unit);
    ObjectNode t = p.putArray("targets").addObject();
    t.put("refId", "A").put("expr", expr).put("legendFormat", legend);
    t.putObject("datasource").put("type", "prometheus").put("uid", "${DS_PROMETHEUS}");
  }
}
