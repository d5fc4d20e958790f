package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bf16 and fp16 through CPU autocast with fp32 master weights (tiny shapes: low precision is slow on these CPUs). */
class MixedPrecisionTest {
  @TempDir Path dir;

  private static Trainer tiny() {
    return Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(30).warmup(2).lr(1e-2).seed(3).dataParallel(2);
  }

  @Test
  void bf16TracksFp32() {
    RunResult fp32 = tiny().runDir(dir.resolve("fp32")).fit();
    RunResult bf16 = tiny().mixedPrecision().runDir(dir.resolve("bf16")).fit();
    double a = fp32.losses().get(29), b = bf16.losses().get(29);
    assertThat(Math.abs(a - b) / a).isLessThanOrEqualTo(0.05);
    assertThat(b).isLessThan(bf16.losses().get(0) * 0.7);
    assertThat(bf16.summary().precision()).isEqualTo("bf16");
  }

  @Test
  void fp16OverflowIsSkippedOnEveryRankAndTheScaleBacksOff() throws Exception {
    Path run = dir.resolve("fp16");
    // 2^17 makes the first scaled gradients overflow fp16 on this model; the scaler must back off and go on
    RunResult r = tiny().precision("fp16").set("precision.initialScale", 131072.0).runDir(run).fit();
    List<JsonNode> steps = Files.readAllLines(run.resolve("metrics.jsonl")).stream().map(l -> {
      try {
        return MetricsJson.MAPPER.readTree(l);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }).toList();
    assertThat(steps.get(0).get("skipped").asBoolean()).isTrue();
    assertThat(steps.get(1).get("loss_scale").asDouble()).isEqualTo(steps.get(0).get("loss_scale").asDouble() / 2);
    long skipped = steps.stream().filter(s -> s.get("skipped").asBoolean()).count();
    assertThat(skipped).isEqualTo(r.summary().skippedSteps()).isBetween(1L, 10L);
    assertThat(steps.get(29).get("skipped").asBoolean()).isFalse();
    assertThat(r.losses().get(29)).isLessThan(r.losses().get(0) * 0.7);
    assertThat(r.summary().replicasConsistent()).as("every rank skipped the same steps").isTrue();
  }
}
