package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainCommandTest {
  @TempDir Path dir;

  @Test
  void processCountThatDoesNotMatchTheMeshExitsTwoWithOneLine() throws Exception {
    String msg = refused("train", spec().toString(), "--set", "parallel.dp=3", "--nproc", "2");
    assertThat(msg).contains("parallel.dp").contains("--nproc").contains("2");
  }

  @Test
  void cudaWhereNoneIsUsableExitsTwoNamingDeviceBeforeAnyWorkerStarts() throws Exception {
    String msg = refused("train", spec().toString(), "--set", "device=cuda", "--run-dir", dir.resolve("run").toString());
    assertThat(msg).startsWith("weft: device: cuda is not usable here: ").contains("weft-sdk-native");
    assertThat(dir.resolve("run")).doesNotExist();
  }

  private Path spec() throws Exception {
    Path spec = dir.resolve("s.yaml");
    Files.writeString(spec, "name: t\nparallel:\n  dp: 2\ntrain:\n  globalBatch: 16\n");
    return spec;
  }

  /** Runs weft with {@code args}, expects exit status 2 and returns its one line of standard error. */
  private static String refused(String... args) {
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = WeftMain.commandLine().execute(args);
    } finally {
      System.setErr(old);
    }
    String msg = err.toString(StandardCharsets.UTF_8).strip();
    assertThat(code).isEqualTo(2);
    assertThat(msg.lines().count()).isEqualTo(1);
    return msg;
  }
}
