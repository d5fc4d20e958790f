package dev.weft.cli;

import dev.weft.WeftException;
import dev.weft.spec.SpecException;
import picocli.CommandLine;

/** Turns exceptions into one line for people and an exit code: 2 for bad input, 1 for failures. */
final class Errors implements CommandLine.IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    if (e instanceof SpecException) {
      System.err.println("weft: " + e.getMessage());
      return WeftMain.EXIT_BAD_INPUT;
    }
    if (e instanceof WeftException) {
      System.err.println("weft: " + e.getMessage());
      return 1;
    }
    System.err.println("weft: unexpected error: " + e);
    e.printStackTrace(System.err);
    return 1;
  }
}
