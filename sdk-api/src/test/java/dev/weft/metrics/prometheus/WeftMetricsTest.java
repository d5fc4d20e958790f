package dev.weft.metrics.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weft.metrics.StepMetrics;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class WeftMetricsTest {
  static String scrape(WeftMetrics m) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new PrometheusTextFormatWriter(false).write(out, m.registry().scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void deviceMemoryIsExportedOnlyWhereAnAllocatorReportsIt() throws Exception {
    WeftMetrics m = new WeftMetrics("t", 1, "adamw");
    var l = m.listener((s, n) -> {});
    l.onMemory(1, 4000, 4000, 8000);
    var cpu = PromText.parse(scrape(m));
    var none = PromText.familyOf(cpu, "weft_device_memory_bytes");
    assertThat(none == null ? java.util.List.of() : none.samples()).as("a CPU run exports no device series").isEmpty();
    l.onDeviceMemory(1, new dev.weft.metrics.DeviceMemory("cuda:1", 3L << 30, 4L << 30, 5L << 30));
    var f = PromText.parse(scrape(m));
    assertThat(PromText.value(f, "weft_device_memory_bytes", Map.of("kind", "allocated", "rank", "1"))).isEqualTo(3L << 30);
    assertThat(PromText.value(f, "weft_device_memory_bytes", Map.of("kind", "reserved"))).isEqualTo(4L << 30);
    assertThat(PromText.value(f, "weft_device_memory_bytes", Map.of("kind", "peak_allocated"))).isEqualTo(5L << 30);
  }

  @Test
  void stepsFeedTheGaugesAndEngineFiguresNotProducedYetReadHonestDefaults() throws Exception {
    WeftMetrics m = new WeftMetrics("t", 3, "adamw");
    var l = m.listener((s, n) -> {});
    l.onRankStart(3, 1000);
    l.onMemory(3, 4000, 4000, 8000); // what the optimizer holds for 1000 fp32 parameters under AdamW
    l.onRankStep(3, new StepMetrics(7, 2.5, 1e-3, 0.75, 512, 100, 5120, 1e9, 80, 15, 5, 4, 1 << 20, 1, false), 10);
    var f = PromText.parse(scrape(m));
    Map<String, String> me = Map.of("run", "t", "rank", "3");
    assertThat(PromText.value(f, "weft_step", me)).isEqualTo(7);
    assertThat(PromText.value(f, "weft_loss", me)).isEqualTo(2.5);
    assertThat(PromText.value(f, "weft_learning_rate", me)).isEqualTo(1e-3);
    assertThat(PromText.value(f, "weft_grad_norm", me)).isEqualTo(0.75);
    assertThat(PromText.value(f, "weft_tokens_per_second", me)).isEqualTo(5120);
    assertThat(PromText.value(f, "weft_last_step_seconds", Map.of("phase", "compute"))).isEqualTo(0.080);
    assertThat(PromText.value(f, "weft_last_step_seconds", Map.of("phase", "communication"))).isEqualTo(0.015);
    assertThat(PromText.value(f, "weft_last_step_seconds", Map.of("phase", "idle"))).isEqualTo(0.005);
    assertThat(PromText.value(f, "weft_memory_bytes", Map.of("kind", "parameters"))).isEqualTo(4000);
    assertThat(PromText.value(f, "weft_memory_bytes", Map.of("kind", "optimizer_state"))).isEqualTo(8000);
    assertThat(PromText.value(f, "weft_peak_rss_bytes", me)).isEqualTo(1 << 20);
    assertThat(PromText.value(f, "weft_world_size", me)).isEqualTo(4);
    assertThat(PromText.value(f, "weft_loss_scale", me)).isEqualTo(1);
    l.onExpertLoad(3, new double[] {40, 24}); // a MoE step: the per-expert gauge appears
    f = PromText.parse(scrape(m));
    assertThat(PromText.value(f, "weft_expert_load", Map.of("expert", "0", "rank", "3"))).isEqualTo(40);
    assertThat(PromText.value(f, "weft_expert_load", Map.of("expert", "1"))).isEqualTo(24);
    assertThat(PromText.value(f, "weft_restarts", me)).isEqualTo(0);
    assertThat(PromText.value(f, "weft_skipped_steps_total", me)).isEqualTo(0);
    assertThat(PromText.value(f, "weft_checkpoint_save_seconds_count", me)).isEqualTo(0);
    assertThat(PromText.value(f, "weft_mfu", me)).isNaN();

    m.recordCheckpointSave(Duration.ofMillis(1500));
    m.setRestarts(2);
    m.setPeakFlopsPerRank(1e9);
    l.onRankStep(3, new StepMetrics(8, 2.4, 1e-3, 0.7, 512, 100, 5120, 2e9, 100, 0, 0, 4, 1 << 20, 1024, true), 10);
    f = PromText.parse(scrape(m));
    assertThat(PromText.value(f, "weft_loss_scale", me)).isEqualTo(1024);
    assertThat(PromText.value(f, "weft_skipped_steps_total", me)).isEqualTo(1);
    assertThat(PromText.value(f, "weft_checkpoint_save_seconds_sum", me)).isEqualTo(1.5);
    assertThat(PromText.value(f, "weft_restarts", me)).isEqualTo(2);
    assertThat(PromText.value(f, "weft_mfu", me)).isEqualTo(0.5); // 2e9 / (1e9 × 4 ranks)
    assertThat(PromText.value(f, "weft_steps_total", me)).isEqualTo(2);
  }

  @Test
  void everyMetricTheDashboardQueriesExists() throws Exception {
    var families = PromText.parse(scrape(new WeftMetrics("run-a", 0, "sgd")));
    JsonNode d = new ObjectMapper().readTree(GrafanaDashboard.json("run-a"));
    assertThat(d.get("panels").size()).isGreaterThanOrEqualTo(10);
    Matcher names = Pattern.compile("weft_[a-z_]+").matcher(d.get("panels").toString());
    int n = 0;
    while (names.find()) {
      assertThat(PromText.familyOf(families, names.group())).as("dashboard queries " + names.group()).isNotNull();
      n++;
    }
    assertThat(n).isGreaterThan(10);
  }
}
