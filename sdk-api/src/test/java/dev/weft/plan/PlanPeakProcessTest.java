package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
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
 * 10 %, on a model whose layers' activations and whole-vocabulary logits are most of the peak (issue 43): the plan
 * counts what the forward really holds, not only what autograd saves.
 */
@Tag("slow")
class PlanPeakProcessTest {
  @TempDir Path dir;

  private static Trainer llama(int rank, String quantize) {
    Trainer t = Trainer.model("llama").set("model.config.hidden_size", 384).set("model.config.intermediate_size", 1024)
        .set("model.config.num_hidden_layers", 6).set("model.config.num_attention_heads", 6)
        .set("model.config.num_key_value_heads", 2).set("model.config.vocab_size", 16384).seqLen(384).globalBatch(1)
        .steps(1).warmup(0).lr(1e-3).seed(3);
    return rank == 0 ? t : t.lora(rank, 2 * rank).set("train.lora.quantize", quantize);
  }

  @ParameterizedTest
  @CsvSource({"16, none", "16, nf4", "0, none"})
  void aWorkerPeaksWithinTenPercentOfThePlan(int rank, String quantize) throws Exception {
    Trainer t = llama(rank, quantize).runDir(dir.resolve("run"));
    TrainingSpec s = t.toSpec();
    var outcome = t.launch(new PrintStream(java.io.OutputStream.nullOutputStream()));
    assertThat(outcome.ok()).as(outcome.reason()).isTrue();
    JsonNode mem = MetricsJson.MAPPER.readTree(dir.resolve("run/summary.json").toFile()).get("memory");
    double measured = mem.get("peak_rss").asDouble(), plan = FitPlan.peak(s).orElseThrow();
    LoggerFactory.getLogger(PlanPeakProcessTest.class).info("rank {} {}: peak RSS {} MiB, plan {} MiB ({})", rank, quantize,
        measured / (1 << 20), plan / (1 << 20), plan / measured);
    assertThat(plan / measured).isBetween(0.9, 1.1);
  }
}
