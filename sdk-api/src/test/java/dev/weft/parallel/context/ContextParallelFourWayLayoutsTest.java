package dev.weft.parallel.context;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;

import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cp=4 (the default all-gather attention) composed with dp2 (ZeRO-1), tp2 (sequence parallel) and pp2 — eight ranks
 * each — trains step for step as one rank does at a sequence of 512, packed documents included.
 */
class ContextParallelFourWayLayoutsTest {
  @TempDir Path dir;

  @Test
  void cp4WithDpTpAndPpMatchesOneRank() {
    Path docs = dir.resolve("docs");
    ContextParallelEquivalenceTest.writeDocuments(docs);
    RunResult one = ContextParallelEquivalenceTest.packed(docs).microBatches(2).runDir(dir.resolve("one")).fit();
    assertClose(ContextParallelEquivalenceTest.packed(docs).contextParallel(4).microBatches(1).dataParallel(2).zero(1).runDir(dir.resolve("dp2")).fit().losses(), one.losses(), 1e-4);
    assertClose(ContextParallelEquivalenceTest.packed(docs).contextParallel(4).microBatches(2).tensorParallel(2).sequenceParallel()
        .runDir(dir.resolve("tp2")).fit().losses(), one.losses(), 1e-4);
    assertClose(ContextParallelEquivalenceTest.packed(docs).contextParallel(4).microBatches(2).pipeline(2)
        .runDir(dir.resolve("pp2")).fit().losses(), one.losses(), 1e-4);
  }
}
