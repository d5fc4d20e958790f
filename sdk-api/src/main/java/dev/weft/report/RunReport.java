package dev.weft.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code weft report RUN_DIR}: a self-contained {@code report.html} (inline SVG plots, no scripts,
 * nothing fetched) and {@code loss.png}, from {@code metrics.jsonl} and {@code summary.json}.
 * Plots: loss, learning rate, throughput, step time breakdown, memory, membership (world size).
 */
public final class RunReport {
  public static final String HTML = "report.html";
  public static final String LOSS_PNG = "loss.png";

  /** What was written. */
  public record Result(Path html, Path lossPng, List<String> plots) {}

  private RunReport() {}

  public static Result write(Path runDir) { return write(RunData.load(runDir), runDir); }

  public static Result write(RunData run, Path outDir) {
    List<Chart> charts = charts(run);
    try {
      Files.createDirectories(outDir);
      Path png = outDir.resolve(LOSS_PNG);
      PngRenderer.write(charts.get(0), png);
      Path html = outDir.resolve(HTML);
      Files.writeString(html, html(run, charts));
      return new Result(html, png, charts.stream().map(Chart::id).toList());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the report into " + outDir, e);
    }
  }

  /** The report's charts; the first is the loss curve. */
  static List<Chart> charts(RunData r) {
    double[] x = r.steps();
    List<Chart> out = new ArrayList<>();
    if (r.has("eval_loss")) { // validation points only where they were measured (NaN elsewhere is skipped)
      out.add(new Chart("loss", "Loss", "loss", false, x, List.of(new Chart.Series("train", Chart.PALETTE[0], r.column("loss")),
          new Chart.Series("eval", Chart.PALETTE[1], r.column("eval_loss")))));
    } else {
      out.add(Chart.of("loss", "Loss", "loss", x, "loss", r.column("loss")));
    }
    if (r.has("reward")) { // GRPO: the rollouts' mean reward, and the held-out prompts' where they were evaluated
      List<Chart.Series> reward = new ArrayList<>(List.of(new Chart.Series("train", Chart.PALETTE[0], r.column("reward"))));
      if (r.has("eval_reward")) reward.add(new Chart.Series("eval (greedy)", Chart.PALETTE[1], r.column("eval_reward")));
      out.add(new Chart("reward", "Reward", "reward", false, x, reward));
    }
    out.add(Chart.of("lr", "Learning rate", "lr", x, "lr", r.column("lr")));
    out.add(Chart.of("throughput", "Throughput", "tokens/s", x, "tokens/s", r.column("tokens_per_s")));
    if (r.has("compute_ms")) {
      out.add(new Chart("step-time", "Step time breakdown", "ms", true, x, List.of(
          new Chart.Series("compute", Chart.PALETTE[0], r.column("compute_ms")),
          new Chart.Series("communication", Chart.PALETTE[1], r.column("comm_ms")),
          new Chart.Series("idle", Chart.PALETTE[2], r.column("idle_ms")))));
    } else {
      out.add(Chart.of("step-time", "Step time (no breakdown recorded)", "ms", x, "step", r.column("step_ms")));
    }
    double[] rss = r.column("peak_rss_bytes");
    double[] mib = new double[rss.length];
    for (int i = 0; i < rss.length; i++) mib[i] = rss[i] / (1 << 20);
    out.add(Chart.of("memory", "Memory (peak RSS of rank 0)", "MiB", x, "peak RSS", mib));
    double[] world = r.has("world_size") ? r.column("world_size") : constant(x.length, worldFromSummary(r));
    out.add(Chart.of("membership", "Membership (world size)", "ranks", x, "world size", world));
    return out;
  }

  private static double worldFromSummary(RunData r) {
    JsonNode s = r.summary();
    return s != null && s.has("world_size") ? s.get("world_size").asDouble() : Double.NaN;
  }

  private static double[] constant(int n, double v) {
    double[] a = new double[n];
    java.util.Arrays.fill(a, v);
    return a;
  }

  /** Steps at which the world size changed, as "step N: a → b ranks". */
  static List<String> membershipChanges(RunData r) {
    List<String> out = new ArrayList<>();
    double[] w = r.column("world_size"), x = r.steps();
    for (int i = 1; i < w.length; i++) {
      if (!Double.isNaN(w[i]) && !Double.isNaN(w[i - 1]) && w[i] != w[i - 1]) {
        out.add(String.format(Locale.ROOT, "step %.0f: %.0f → %.0f ranks", x[i], w[i - 1], w[i]));
      }
    }
    return out;
  }

  static String html(RunData r, List<Chart> charts) {
    JsonNode s = r.summary();
    String name = r.dir().toAbsolutePath().normalize().getFileName() == null ? "run" : r.dir().toAbsolutePath().normalize().getFileName().toString();
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Weft report: ")
        .append(SvgRenderer.esc(name)).append("</title>\n<style>\n")
        .append("body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}")
        .append("table{border-collapse:collapse}td,th{padding:2px 12px;text-align:left;border-bottom:1px solid #eee}")
        .append(".plots{display:flex;flex-wrap:wrap;gap:12px}.plot{border:1px solid #ddd;background:#fff}")
        .append(".title{font-size:14px;font-weight:600}.tick{font-size:11px;fill:#555}.axis{font-size:11px;fill:#333}")
        .append(".grid{stroke:#eee}\n</style></head><body>\n");
    h.append("<h1>Weft report: ").append(SvgRenderer.esc(name)).append("</h1>\n<table>\n");
    row(h, "steps recorded", String.valueOf(r.rows()));
    if (s != null) {
      for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isNull()) row(h, e.getKey(), e.getValue().isTextual() ? e.getValue().asText() : e.getValue().toString());
      }
    } else {
      row(h, "status", "no summary.json (the run did not finish, or is still running)");
    }
    List<String> changes = membershipChanges(r);
    row(h, "membership changes", changes.isEmpty() ? "none" : String.join("; ", changes));
    h.append("</table>\n<div class=\"plots\">\n");
    for (Chart c : charts) h.append(SvgRenderer.render(c));
    h.append("</div>\n<p>Generated by <code>weft report</code> from metrics.jsonl; the loss curve is also in ")
        .append(LOSS_PNG).append(".</p>\n</body></html>\n");
    return h.toString();
  }

  private static void row(StringBuilder h, String k, String v) {
    h.append("<tr><th>").append(SvgRenderer.esc(k)).append("</th><td>").append(SvgRenderer.esc(v)).append("</td></tr>\n");
  }
}
