package dev.weft.cuda.nccl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NcclComm#allToAll} through the real shim and JNI, against a stand-in libnccl.so.2 built here from
 * {@code src/test/native/fake_nccl.cpp} (ranks as threads, host buffers; sends and receives only inside a group,
 * matched per peer in issue order). What the Gloo test ({@link AllToAllPlanTest}) cannot reach: the group calls, byte
 * offsets, counts, data type codes and peers as NCCL's C ABI receives them. In a JVM of its own, since the shim loads
 * one libnccl.so.2 per process and the other tests here want none.
 */
class NcclShimAllToAllTest {
  @Test
  void unequalZeroAndEqualSplitsThroughTheShim(@TempDir Path dir) throws Exception {
    Path lib = dir.resolve("libnccl.so.2");
    run(dir, List.of("g++", "-O1", "-shared", "-fPIC", "-o", lib.toString(),
        Paths.get("src/test/native/fake_nccl.cpp").toAbsolutePath().toString()), 120);
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Result r = run(dir, List.of(java, "-cp", System.getProperty("java.class.path"), FakeNcclAllToAll.class.getName(),
        lib.toString()), 120);
    assertThat(r.status()).as(r.output()).isZero();
    assertThat(r.output().lines().filter(l -> l.endsWith(" ok"))).as(r.output()).hasSize(2 * FakeNcclAllToAll.WORLD);
  }

  record Result(int status, String output) {}

  private static Result run(Path dir, List<String> command, int seconds) throws IOException, InterruptedException {
    Path log = dir.resolve("out-" + System.nanoTime() + ".txt");
    Process p = new ProcessBuilder(command).directory(Paths.get("").toAbsolutePath().toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command.get(0) + " did not finish in " + seconds + " s: " + Files.readString(log, StandardCharsets.UTF_8));
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(String.join(" ", command) + "\n" + out).isIn(0, 1);
    return new Result(p.exitValue(), out);
  }
}
