package dev.weft.cli;

import dev.weft.error.WeftException;
import dev.weft.util.NativeTraces;
import java.io.IOException;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/**
 * Turns exceptions into one line for people and an exit code: 2 for bad input, 3 for a diverged run, 1 for failures.
 * A stack trace follows only with {@code --debug}; a native backtrace in a message is cut to its first line.
 */
final class Errors implements CommandLine.IExecutionExceptionHandler {
  static final String DEBUG = "--debug";

  @Override
  public int handleExecutionException(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    int code = e instanceof dev.weft.error.BadInputException ? WeftMain.EXIT_BAD_INPUT
        : e instanceof dev.weft.train.TrainingDivergedException ? dev.weft.train.TrainingDivergedException.EXIT_CODE : 1;
    String line;
    String message = NativeTraces.firstLine(e.getMessage());
    if (e instanceof WeftException) line = message;
    else if (e instanceof IOException || e instanceof UncheckedIOException) line = "input/output error: " + message;
    else if (NativeTraces.hasTrace(e.getMessage())) line = "native error: " + message + " (run again with --debug for the stack trace)";
    else line = "unexpected error: " + e.getClass().getName() + (message.isEmpty() ? "" : ": " + message)
        + " (run again with --debug for the stack trace)";
    System.err.println("weft: " + line);
    if (debug(parsed)) e.printStackTrace(System.err);
    return code;
  }

  /** A command line picocli cannot parse (an unknown option, a value of the wrong type): one line, exit 2, no usage screen. */
  static final class BadArguments implements CommandLine.IParameterExceptionHandler {
    @Override
    public int handleParseException(CommandLine.ParameterException e, String[] args) {
      CommandLine cl = e.getCommandLine();
      String suggestion = "";
      if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
        suggestion = "; did you mean " + String.join(" or ", u.getSuggestions()) + "?";
      }
      System.err.println("weft: " + NativeTraces.firstLine(e.getMessage()) + suggestion + " (" + cl.getCommandSpec().qualifiedName()
          + " --help lists the options)");
      return WeftMain.EXIT_BAD_INPUT;
    }
  }

  /** Whether {@code --debug} was given to the command or any subcommand on the way. */
  static boolean debug(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption(DEBUG)) return true;
    }
    return false;
  }
}
