package dev.weft.parallel.pipeline;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Llama with tied input and output embeddings trains step for step as on one rank in every layout:
 * split over pipeline stages (the first holds the embedding, the last a copy whose gradient is summed
 * with it), over tensor-parallel ranks (one vocabulary slice), and under every ZeRO stage.
 */
class TiedEmbeddingsEquivalenceTest {
  @TempDir Path dir;

  static Trainer tied() {
    return Trainer.model("llama").set("model.config.hidden_size", 32).set("model.config.intermediate_size", 48)
        .set("model.config.num_hidden_layers", 4).set("model.config.num_attention_heads", 4)
        .set("model.config.num_key_value_heads", 2).set("model.config.tie_word_embeddings", true)
        .seqLen(16).globalBatch(8).microBatches(2).steps(5).warmup(2).lr(3e-3).seed(31);
  }

  @ParameterizedTest
  @ValueSource(strings = {"pp2", "pp2chunks", "pp2recompute", "tp2", "tp2sp", "dp2zero3", "dp2zero1", "dp2pp2",
      "dp2tp2pp2zero1"})
  void layoutMatchesOneRank(String layout) {
    RunResult one = tied().runDir(dir.resolve("ref")).fit();
    Trainer t = switch (layout) {
      case "pp2" -> tied().pipeline(2);
      case "pp2chunks" -> tied().pipeline(2).schedule("interleaved-1f1b").set("parallel.virtualStages", 2);
      case "pp2recompute" -> tied().pipeline(2).recompute();
      case "tp2" -> tied().tensorParallel(2);
      case "tp2sp" -> tied().tensorParallel(2).sequenceParallel();
      case "dp2zero3" -> tied().dataParallel(2).microBatches(1).zero(3);
      case "dp2zero1" -> tied().dataParallel(2).microBatches(1).zero(1);
      case "dp2pp2" -> tied().dataParallel(2).pipeline(2);
      case "dp2tp2pp2zero1" -> tied().dataParallel(2).tensorParallel(2).pipeline(2).zero(1);
      default -> throw new IllegalArgumentException(layout);
    };
    RunResult other = t.runDir(dir.resolve(layout)).fit();
    assertClose(other.losses(), one.losses(), 1e-4);
    assertThat(other.summary().parameters()).isEqualTo(one.summary().parameters());
    assertThat(other.weights()).doesNotContainKey("lm_head.weight");
    Tensor a = one.weights().get("model.embed_tokens.weight"), b = other.weights().get("model.embed_tokens.weight");
    assertThat(a.sub(b).abs().max().item_double()).isLessThan(1e-4);
  }

  /** Saved split over stages (the tied weight once), resumed on one rank and on other stages: the run that never stopped. */
  @Test
  void checkpointHoldsTheTiedWeightOnceAndResumesInAnotherLayout() {
    Path ck = dir.resolve("ck");
    RunResult full = tied().steps(6).dataParallel(2).pipeline(2).zero(1).checkpointEvery(3).checkpointDir(ck)
        .runDir(dir.resolve("full")).fit();
    Checkpoint c = CheckpointResolver.resolve(ck, "latest");
    assertThat(c.manifest().tensors().keySet()).contains("model/model.embed_tokens.weight").noneMatch(n -> n.contains("lm_head"));
    String step3 = ck.resolve("step-000003").toString();
    RunResult one = tied().steps(6).resume(step3).runDir(dir.resolve("one")).fit();
    RunResult staged = tied().steps(6).pipeline(2).tensorParallel(2).microBatches(2).resume(step3)
        .runDir(dir.resolve("staged")).fit();
    var tail = full.losses().subList(3, 6);
    assertClose(one.losses(), tail, 1e-4);
    assertClose(staged.losses(), tail, 1e-4);
  }
}
