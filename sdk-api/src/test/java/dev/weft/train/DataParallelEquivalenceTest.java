package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** dp = 2 (and gradient accumulation) with global batch B trains like dp = 1 with global batch B. */
class DataParallelEquivalenceTest {
  @TempDir Path dir;

  private Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64).set("model.config.heads", 2)
        .seqLen(32).globalBatch(8).steps(8).warmup(2).lr(3e-3).seed(11);
  }

  private static void assertClose(List<Double> a, List<Double> b, double rel) {
    TensorParallelEquivalenceTest.assertClose(a, b, rel);
  }

  @Test
  void twoReplicasMatchOneRankAndStayIdentical() {
    RunResult one = small().runDir(dir.resolve("dp1")).fit();
    RunResult two = small().dataParallel(2).runDir(dir.resolve("dp2")).fit();
    assertClose(two.losses(), one.losses(), 1e-5);
    assertThat(two.summary().replicasConsistent()).isTrue();
    assertThat(two.summary().worldSize()).isEqualTo(2);
    assertThat(one.losses().get(7)).isLessThan(one.losses().get(0));
  }

  @Test
  void gradientAccumulationMatchesOneBigBatch() {
    RunResult one = small().runDir(dir.resolve("m1")).fit();
    RunResult acc = small().dataParallel(2).microBatches(2).runDir(dir.resolve("m2")).fit();
    assertClose(acc.losses(), one.losses(), 1e-5);
  }
}
