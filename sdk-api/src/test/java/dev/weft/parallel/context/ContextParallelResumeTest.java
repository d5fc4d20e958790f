package dev.weft.parallel.context;

import static dev.weft.train.TensorParallelEquivalenceTest.assertClose;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.train.RunResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A checkpoint saved under cp=2 resumes under cp=1 (and the manifest's mesh records cp), continuing the same losses. */
class ContextParallelResumeTest {
  @TempDir Path dir;

  @Test
  void cpChangesOnResume() throws Exception {
    Path ck = dir.resolve("ck");
    RunResult full = ContextParallelEquivalenceTest.small().contextParallel(2).checkpointEvery(1).checkpointDir(ck)
        .runDir(dir.resolve("a")).fit();
    assertThat(java.nio.file.Files.readString(ck.resolve("step-000001").resolve("manifest.json"))).contains("\"cp\" : 2");
    RunResult resumed = ContextParallelEquivalenceTest.small().resume(ck.resolve("step-000001").toString())
        .runDir(dir.resolve("b")).fit();
    assertThat(resumed.losses()).hasSize(1);
    assertClose(resumed.losses(), full.losses().subList(1, 2), 1e-4);
  }
}
