package dev.weft.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.cli.WeftMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** The {@code weft} command run in this JVM, its exit code and standard error; and the one-line-error rule. */
public final class WeftCli {
  public record Run(int code, String err) {}

  private WeftCli() {}

  /** A run's exit code, stdout and stderr (stripped). */
  public record Output(int code, String out, String err) {}

  public static Run run(String... args) {
    Output o = capture(args);
    return new Run(o.code(), o.err());
  }

  /** Runs {@code weft args} in this JVM and keeps what it printed. */
  public static synchronized Output capture(String... args) {
    PrintStream oldErr = System.err, oldOut = System.out;
    ByteArrayOutputStream err = new ByteArrayOutputStream(), out = new ByteArrayOutputStream();
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      int code = WeftMain.commandLine().execute(args);
      return new Output(code, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8).strip());
    } finally {
      System.setErr(oldErr);
      System.setOut(oldOut);
    }
  }

  /** One {@code weft:} line with exit {@code code}, no exception's name, mentioning each of {@code mentions}. */
  public static void assertOneLine(Run r, int code, String... mentions) {
    assertThat(r.code()).as(r.err()).isEqualTo(code);
    assertThat(r.err().lines().count()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).startsWith("weft: ").doesNotContain("Exception").contains(mentions);
  }
}
