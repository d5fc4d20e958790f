package dev.weft.error;

/**
 * Something the user gave is not what it must be (a path, a flag, a file's contents, a size): the weft command's
 * exit code 2, as for a spec that cannot run ({@code SpecException}, one of these). Failures of the machine or the
 * run stay plain {@link WeftException}s (exit 1).
 */
public class BadInputException extends WeftException {
  public BadInputException(String message) { super(message); }
}
