package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A resume compares the checkpoint's model and optimizer with the spec's. Before, a 4-layer checkpoint resumed
 * with layers=3 loaded blocks 0-2 and ignored block 3, and AdamW state resumed as SGD: both silently.
 */
class ResumeMismatchTest {
  @TempDir Path dir;
  private Path step2;

  private static Trainer small(int layers) {
    return Trainer.model("gpt").set("model.config.layers", layers).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(4).warmup(1).lr(3e-3).seed(31);
  }

  @BeforeEach
  void saveAFourLayerAdamWCheckpoint() {
    Path ck = dir.resolve("ck");
    small(4).checkpointEvery(2).checkpointDir(ck).runDir(dir.resolve("a")).fit();
    step2 = ck.resolve("step-000002");
  }

  private Trainer resume(int layers) { return small(layers).resume(step2.toString()).runDir(dir.resolve("b")); }

  @Test
  void fewerLayersAreRefusedInOneLineNamingBothModels() {
    assertThatThrownBy(() -> resume(3).fit()).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("checkpoint.resume: ").hasMessageContaining("layers=4").hasMessageContaining("layers=3")
        .hasMessageContaining("model/blocks.3.").hasMessageContaining("--allow-partial")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void allowPartialLoadsTheTensorsThatMatch() {
    RunResult r = resume(3).set("checkpoint.allowPartial", true).fit();
    assertThat(r.losses()).hasSize(2);
    assertThat(r.summary().status()).isEqualTo("completed");
  }

  @Test
  void theSameModelOnPipelineStagesMatchesThroughAllRanksTogether() {
    // each stage wants only its blocks: the checkpoint's tensors are matched against the ranks' parts united
    assertThat(resume(4).pipeline(2).microBatches(2).fit().losses()).hasSize(2);
  }

  @Test
  void anotherOptimizerIsRefusedUnlessTheOptimizerIsReset() {
    assertThatThrownBy(() -> resume(4).optimizer("sgd").fit()).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("train.optimizer: ").hasMessageContaining("holds adamw optimizer state")
        .hasMessageContaining("asks for sgd").hasMessageContaining("--reset-optimizer");
    RunResult r = resume(4).optimizer("sgd").set("checkpoint.resetOptimizer", true).fit();
    assertThat(r.losses()).hasSize(2).allSatisfy(l -> assertThat(l).isBetween(0.5, 10.0));
  }
}
