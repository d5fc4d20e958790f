package dev.weft.parallel.context;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;

import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recomputation under cp re-runs each chunk's forward before its backward, K/V exchange included; every cp rank
 * re-runs it at the same point, so the exchange pairs up and the step equals one rank's without recompute.
 */
class ContextRecomputeTest {
  @TempDir Path dir;

  @Test
  void recomputedCpStepsEqualOneRank() {
    RunResult one = ContextParallelEquivalenceTest.small().microBatches(2).runDir(dir.resolve("one")).fit();
    for (String method : new String[] {"allgather", "ring"}) {
      assertClose(ContextParallelEquivalenceTest.small().contextParallel(2).set("parallel.cpMethod", method).microBatches(2)
          .recompute().runDir(dir.resolve(method)).fit().losses(), one.losses(), 1e-4);
    }
    assertClose(ContextParallelEquivalenceTest.small().contextParallel(2).microBatches(2).pipeline(2).recompute()
        .runDir(dir.resolve("pp2")).fit().losses(), one.losses(), 1e-4);
  }
}
