package dev.weft.parallel.context;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;

import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cp=2 under ZeRO-2, ZeRO-3 and HSDP (ZeRO-3 sharded in pairs, replicated across them): the cp ranks of one dp
 * coordinate hold the same shards and sum their gradients after the dp reduction, so each step equals one rank's.
 */
class ContextShardedStateTest {
  @TempDir Path dir;

  @Test
  void cpWithZero2Zero3AndHsdpMatchesOneRank() {
    RunResult one = ContextParallelEquivalenceTest.small().microBatches(4).globalBatch(4).runDir(dir.resolve("one")).fit();
    assertClose(cp2().dataParallel(2).zero(2).runDir(dir.resolve("z2")).fit().losses(), one.losses(), 1e-4);
    assertClose(cp2().dataParallel(2).zero(3).runDir(dir.resolve("z3")).fit().losses(), one.losses(), 1e-4);
    assertClose(cp2().dataParallel(4).zero(3).zeroShardSize(2).runDir(dir.resolve("hsdp")).fit().losses(), one.losses(), 1e-4);
  }

  private static dev.weft.Trainer cp2() {
    return ContextParallelEquivalenceTest.small().contextParallel(2).globalBatch(4).microBatches(1);
  }
}
