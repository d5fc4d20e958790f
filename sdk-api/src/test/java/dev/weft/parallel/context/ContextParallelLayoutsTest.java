package dev.weft.parallel.context;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;

import dev.weft.Trainer;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * cp=2 composed with dp2 (ZeRO-1), tp2 (sequence parallel) and pp2 trains step for step as one rank does, at a
 * sequence of 512, with ring attention and with all-gathered K/V.
 */
class ContextParallelLayoutsTest {
  @TempDir static Path dir;
  private static RunResult one;

  @BeforeAll
  static void oneRank() { one = ContextParallelEquivalenceTest.small().microBatches(2).runDir(dir.resolve("one")).fit(); }

  private static Trainer cp2(String method) {
    return ContextParallelEquivalenceTest.small().contextParallel(2).set("parallel.cpMethod", method);
  }

  @ParameterizedTest
  @ValueSource(strings = {"ring", "allgather"})
  void cpWithDpTpAndPpMatchesOneRank(String method) {
    assertClose(cp2(method).microBatches(1).dataParallel(2).zero(1).runDir(dir.resolve(method + "-dp2")).fit().losses(), one.losses(), 1e-4);
    assertClose(cp2(method).microBatches(2).tensorParallel(2).sequenceParallel().runDir(dir.resolve(method + "-tp2")).fit().losses(),
        one.losses(), 1e-4);
    assertClose(cp2(method).microBatches(2).pipeline(2).runDir(dir.resolve(method + "-pp2")).fit().losses(), one.losses(), 1e-4);
  }
}
