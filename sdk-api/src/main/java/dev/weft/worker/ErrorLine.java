package dev.weft.worker;

import dev.weft.error.BadInputException;
import dev.weft.error.ExitCodes;
import dev.weft.error.WeftException;
import dev.weft.train.TrainingDivergedException;
import dev.weft.util.NativeTraces;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * An exception as a person reads it: one line and an exit code (2 bad input, 3 a diverged run, 1 a failure). A native
 * backtrace in a message is cut to its first line. The {@code weft} command and a worker process print the same.
 */
public final class ErrorLine {
  private ErrorLine() {}

  public static int exitCode(Throwable e) {
    return e instanceof BadInputException ? ExitCodes.BAD_INPUT
        : e instanceof TrainingDivergedException ? TrainingDivergedException.EXIT_CODE : ExitCodes.FAILURE;
  }

  /** The line, without the {@code weft: } prefix; {@code debugHint}: where to get the stack trace, for unexpected errors. */
  public static String of(Throwable e, String debugHint) {
    String message = NativeTraces.firstLine(e.getMessage());
    if (e instanceof WeftException) return message;
    if (e instanceof IOException || e instanceof UncheckedIOException) return "input/output error: " + message;
    if (NativeTraces.hasTrace(e.getMessage())) return "native error: " + message + " (" + debugHint + ")";
    return "unexpected error: " + e.getClass().getName() + (message.isEmpty() ? "" : ": " + message) + " (" + debugHint + ")";
  }
}
