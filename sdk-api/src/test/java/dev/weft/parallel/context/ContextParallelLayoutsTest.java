package dev.weft.parallel.context;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;

import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cp=2 composed with dp2 (ZeRO-1), tp2 (sequence parallel) and pp2 trains step for step as one rank does, at a sequence of 512. */
class ContextParallelLayoutsTest {
  @TempDir Path dir;

  @Test
  void cpWithDpTpAndPpMatchesOneRank() {
    RunResult one = ContextParallelEquivalenceTest.small().microBatches(2).runDir(dir.resolve("one")).fit();
    assertClose(ContextParallelEquivalenceTest.small().microBatches(1).dataParallel(2).zero(1).contextParallel(2)
        .runDir(dir.resolve("dp2")).fit().losses(), one.losses(), 1e-4);
    assertClose(ContextParallelEquivalenceTest.small().microBatches(2).tensorParallel(2).sequenceParallel().contextParallel(2)
        .runDir(dir.resolve("tp2")).fit().losses(), one.losses(), 1e-4);
    assertClose(ContextParallelEquivalenceTest.small().microBatches(2).pipeline(2).contextParallel(2)
        .runDir(dir.resolve("pp2")).fit().losses(), one.losses(), 1e-4);
  }
}
