package dev.weft.parallel.context;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;

import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ulysses (cpMethod alltoall: heads ↔ sequence) at cp=2 trains packed documents at a sequence of 512 as one rank does. */
class ContextParallelAllToAllTest {
  @TempDir Path dir;

  @Test
  void allToAllMatchesOneRank() {
    ContextParallelEquivalenceTest.writeDocuments(dir.resolve("docs"));
    RunResult one = ContextParallelEquivalenceTest.packed(dir.resolve("docs")).runDir(dir.resolve("one")).fit();
    RunResult cp2 = ContextParallelEquivalenceTest.packed(dir.resolve("docs")).contextParallel(2).set("parallel.cpMethod", "alltoall")
        .runDir(dir.resolve("cp2")).fit();
    assertClose(cp2.losses(), one.losses(), 1e-4);
  }
}
