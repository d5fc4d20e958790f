package dev.weft.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.error.BadInputException;
import dev.weft.error.ExitCodes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The worker process's command line, read without picocli, and its one-line errors. */
class WorkerProcessTest {
  @Test
  void readsWhatLaunchersWriteBothSpellings() {
    WorkerArgs a = WorkerArgs.parse(List.of("--spec", "s.yaml", "--run-dir=r", "--timeout", "30", "--set", "a=1", "--set=b.c=2",
        "--node-addr", "10.0.0.2"));
    assertThat(a).isEqualTo(new WorkerArgs(Path.of("s.yaml"), Path.of("r"), 30, List.of("a=1", "b.c=2"), "10.0.0.2"));
    assertThat(WorkerArgs.parse(a.argv())).isEqualTo(new WorkerArgs(Path.of("s.yaml"), Path.of("r"), 30, List.of("a=1", "b.c=2"), null));
    assertThat(WorkerArgs.parse(List.of("--spec", "s.yaml"))).extracting(WorkerArgs::runDir, WorkerArgs::timeoutSeconds)
        .containsExactly(WorkerArgs.DEFAULT_RUN_DIR, WorkerArgs.DEFAULT_TIMEOUT_S);
  }

  @Test
  void refusesWhatItCannotRead() {
    assertThatThrownBy(() -> WorkerArgs.parse(List.of("--run-dir", "r"))).isInstanceOf(BadInputException.class).hasMessageContaining("--spec");
    assertThatThrownBy(() -> WorkerArgs.parse(List.of("--spec", "s", "--nope", "1"))).isInstanceOf(BadInputException.class)
        .hasMessageContaining("--nope");
    assertThatThrownBy(() -> WorkerArgs.parse(List.of("--spec", "s", "--timeout", "soon"))).isInstanceOf(BadInputException.class)
        .hasMessageContaining("soon");
    assertThatThrownBy(() -> WorkerArgs.parse(List.of("--spec"))).isInstanceOf(BadInputException.class).hasMessageContaining("needs a value");
  }

  @Test
  void aBadCommandIsOneLineAndExitTwo() {
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = WorkerProcess.run(List.of("train", "x.yaml"));
    } finally {
      System.setErr(old);
    }
    String line = err.toString(StandardCharsets.UTF_8).strip();
    assertThat(code).isEqualTo(ExitCodes.BAD_INPUT);
    assertThat(line.lines().count()).as(line).isEqualTo(1);
    assertThat(line).startsWith("weft: ").contains("worker --spec FILE").doesNotContain("Exception");
  }

  @Test
  void aMissingSpecIsAFailureNamingIt() {
    PrintStream old = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = WorkerProcess.run(List.of("worker", "--spec", "/nonexistent/weft-spec.yaml"));
    } finally {
      System.setErr(old);
    }
    assertThat(code).isNotZero();
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("weft-spec.yaml");
  }
}
