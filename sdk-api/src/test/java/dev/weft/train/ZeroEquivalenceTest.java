package dev.weft.train;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** ZeRO 1–3 train like plain data parallelism, with a fraction of the optimizer state per rank. */
class ZeroEquivalenceTest {
  @TempDir Path dir;

  private static Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64).set("model.config.heads", 4)
        .seqLen(32).globalBatch(8).steps(10).warmup(2).lr(3e-3).seed(17);
  }

  @ParameterizedTest
  @CsvSource({"1,2", "2,2", "3,2", "1,4", "2,4", "3,4"})
  void zeroStagesMatchZeroZero(int zero, int dp) {
    RunResult ref = small().dataParallel(dp).runDir(dir.resolve("z0")).fit();
    RunResult z = small().dataParallel(dp).zero(zero).microBatches(2).runDir(dir.resolve("z" + zero)).fit();
    assertClose(z.losses(), ref.losses(), 1e-5);
    assertThat(z.summary().replicasConsistent()).isTrue();
    assertThat((double) z.summary().memory().optimizerState()).isLessThanOrEqualTo(ref.summary().memory().optimizerState() * (1.0 / dp + 0.05));
    if (zero >= 2) {
      assertThat((double) z.summary().memory().gradients()).isLessThanOrEqualTo(ref.summary().memory().gradients() * (1.0 / dp + 0.05));
    }
    if (zero == 3) {
      assertThat((double) z.summary().memory().parameters()).isLessThanOrEqualTo(ref.summary().memory().parameters() * (1.0 / dp + 0.05));
    }
  }

  @Test
  void zero3ComposesWithTensorParallelism() {
    RunResult ref = small().dataParallel(2).tensorParallel(2).runDir(dir.resolve("tp")).fit();
    RunResult z = small().dataParallel(2).tensorParallel(2).zero(3).runDir(dir.resolve("tpz3")).fit();
    assertClose(z.losses(), ref.losses(), 1e-5);
  }
}
