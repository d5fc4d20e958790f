package dev.weft.cli;

import dev.weft.error.ExitCodes;
import dev.weft.util.NativeTraces;
import dev.weft.worker.ErrorLine;
import picocli.CommandLine;

/**
 * Turns exceptions into one line for people and an exit code: 2 for bad input, 3 for a diverged run, 1 for failures.
 * A stack trace follows only with {@code --debug}; a native backtrace in a message is cut to its first line.
 */
final class Errors implements CommandLine.IExecutionExceptionHandler {
  static final String DEBUG = "--debug";

  @Override
  public int handleExecutionException(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
    int code = ErrorLine.exitCode(e);
    String line = ErrorLine.of(e, "run again with --debug for the stack trace");
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
      return ExitCodes.BAD_INPUT;
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
