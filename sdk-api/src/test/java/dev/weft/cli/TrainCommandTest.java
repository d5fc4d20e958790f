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
    Path spec = dir.resolve("s.yaml");
    Files.writeString(spec, "name: t\nparallel:\n  dp: 2\ntrain:\n  globalBatch: 16\n");
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = WeftMain.commandLine().execute("train", spec.toString(), "--set", "parallel.dp=3", "--nproc", "2");
    } finally {
      System.setErr(old);
    }
    String msg = err.toString(StandardCharsets.UTF_8).strip();
    assertThat(code).isEqualTo(2);
    assertThat(msg.lines().count()).isEqualTo(1);
    assertThat(msg).contains("parallel.dp").contains("--nproc").contains("2");
  }
}
