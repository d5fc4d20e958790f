package dev.weft.train;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The GPT split into pipeline stages trains step for step like the whole model on one rank. */
class PipelineTrainingEquivalenceTest {
  @TempDir Path dir;

  static Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 4).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).microBatches(4).steps(8).warmup(2).lr(3e-3).seed(23);
  }

  @ParameterizedTest
  @CsvSource({"2,gpipe", "2,1f1b", "2,interleaved-1f1b", "4,1f1b"})
  void stagesMatchOneRank(int pp, String schedule) {
    RunResult one = small().runDir(dir.resolve("ref")).fit();
    RunResult piped = small().pipeline(pp).schedule(schedule).runDir(dir.resolve(schedule)).fit();
    assertClose(piped.losses(), one.losses(), 1e-4);
    assertThat(piped.summary().parameters()).isEqualTo(one.summary().parameters());
  }

  @Test
  void recomputationChangesNoLoss() {
    RunResult one = small().runDir(dir.resolve("ref")).fit();
    RunResult re = small().recompute().runDir(dir.resolve("re")).fit();
    assertClose(re.losses(), one.losses(), 1e-5);
    RunResult rePiped = small().pipeline(2).recompute().runDir(dir.resolve("re2")).fit();
    assertClose(rePiped.losses(), one.losses(), 1e-4);
  }

  @Test
  void threeDimensionsMatchDataParallelAlone() {
    RunResult dp2 = small().dataParallel(2).microBatches(2).runDir(dir.resolve("dp2")).fit();
    RunResult threeD = small().dataParallel(2).tensorParallel(2).pipeline(2).microBatches(2).zero(1)
        .runDir(dir.resolve("3d")).fit();
    assertClose(threeD.losses(), dp2.losses(), 1e-4);
    assertThat(threeD.summary().replicasConsistent()).isTrue();
    assertThat(threeD.summary().worldSize()).isEqualTo(8);
  }

  @Test
  void clearErrors() {
    assertThatThrownBy(() -> small().pipeline(8).toSpec()).isInstanceOf(SpecException.class).hasMessageContaining("4 layers");
    assertThatThrownBy(() -> small().pipeline(2).zero(2).toSpec()).isInstanceOf(SpecException.class).hasMessageContaining("parallel.zero");
    assertThatThrownBy(() -> small().pipeline(2).schedule("interleaved-1f1b").microBatches(1).globalBatch(8).toSpec())
        .isInstanceOf(SpecException.class).hasMessageContaining("parallel.microBatches");
    assertThatThrownBy(() -> small().pipeline(2).schedule("zigzag").toSpec()).hasMessageContaining("gpipe, 1f1b, interleaved-1f1b");
  }
}
