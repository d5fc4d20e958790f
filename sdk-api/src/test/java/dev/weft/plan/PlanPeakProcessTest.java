package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.checkpoint.DType;
import dev.weft.metrics.MetricsJson;
import dev.weft.models.hf.HfModelInit;
import dev.weft.models.hf.HfShards;
import dev.weft.spec.TrainingSpec;
import java.io.PrintStream;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@code weft plan}'s total against a real worker process's peak resident set (the OS's VmHWM, summary.json) within
 * 10 %, on a model whose layers' activations and whole-vocabulary logits are a large part of the peak (issue 43): the
 * plan counts what the forward really holds, not only what autograd saves, and a compressed base's backward too.
 */
@Tag("slow")
class PlanPeakProcessTest {
  @TempDir Path dir;

  /**
   * SmolLM2-135M's shape cut to 8 layers, written in bf16 as a user's model comes ({@code weft model init --like}), LoRA
   * over it as pretrained weights (each compressed as it loads), seq 256.
   */
  private Trainer smol(int rank, String quantize) throws java.io.IOException {
    Path hf = dir.resolve("hf");
    if (!java.nio.file.Files.exists(hf)) {
      HfModelInit.write("smollm2-135m", java.util.List.of("num_hidden_layers=8"), null, hf, DType.BF16, 7, HfShards.DEFAULT_MAX_BYTES);
    }
    Trainer t = Trainer.model("llama").pretrained(hf).seqLen(256).globalBatch(1).steps(1).warmup(0).lr(1e-4).seed(3);
    return rank == 0 ? t : t.lora(rank, 2 * rank).set("train.lora.quantize", quantize);
  }

  @ParameterizedTest
  @CsvSource({"16, none", "16, nf4", "0, none"})
  void aWorkerPeaksWithinTenPercentOfThePlan(int rank, String quantize) throws Exception {
    Trainer t = smol(rank, quantize).runDir(dir.resolve("run"));
    TrainingSpec s = t.toSpec();
    var outcome = t.launch(new PrintStream(java.io.OutputStream.nullOutputStream()));
    assertThat(outcome.ok()).as(outcome.reason()).isTrue();
    JsonNode mem = MetricsJson.MAPPER.readTree(dir.resolve("run/summary.json").toFile()).get("memory");
    double measured = mem.get("peak_rss").asDouble(), plan = FitPlan.peak(s).orElseThrow();
    LoggerFactory.getLogger(PlanPeakProcessTest.class).info("rank {} {}: peak RSS {} MiB, plan {} MiB ({})", rank, quantize,
        measured / (1 << 20), plan / (1 << 20), plan / measured);
    assertThat(plan / measured).isBetween(0.9, 1.1);
    // the resident set as step 1 began: the weights and the optimizer's state in place, the steps' activations not yet
    assertThat(mem.get("resident_at_start").asDouble()).isGreaterThan(0).isLessThanOrEqualTo(measured);
  }
}
