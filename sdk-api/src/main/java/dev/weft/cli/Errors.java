package dev.weft.cli;

import dev.weft.error.WeftException;
import dev.weft.spec.SpecException;
import java.io.IOException;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/**
 * Turns exceptions into one line for people and an exit code: 2 for bad input, 3 for a diverged run, 1 for failures.
 * A stack trace follows only with {@code --debug}.
 */
final class Errors implements CommandLine.IExecutionExceptionHandler {
  static final String DEBUG = "--debug";

  @Override
  public int handleExecutionException(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    int code = e instanceof SpecException ? WeftMain.EXIT_BAD_INPUT
        : e instanceof dev.weft.train.TrainingDivergedException ? dev.weft.train.TrainingDivergedException.EXIT_CODE : 1;
    String line;
    if (e instanceof WeftException) line = e.getMessage();
    else if (e instanceof IOException || e instanceof UncheckedIOException) line = "input/output error: " + e.getMessage();
    else line = "unexpected error: " + e + " (run again with --debug for the stack trace)";
    System.err.println("weft: " + line);
    if (debug(parsed)) e.printStackTrace(System.err);
    return code;
  }

  /** Whether {@code --debug} was given to the command or any subcommand on the way. */
  static boolean debug(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption(DEBUG)) return true;
    }
    return false;
  }
}
