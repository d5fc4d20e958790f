package dev.weft.util;

import java.util.regex.Pattern;

/**
 * libtorch's errors carry their C++ backtrace in the message ("Exception raised from ... frame #0: ...");
 * c10's warnings print one too. People get the first line; the frames are for bug reports ({@code --debug}).
 */
public final class NativeTraces {
  private static final Pattern TRACE_LINE = Pattern.compile("^(Exception raised from .*|frame #\\d+: .*)$");

  private NativeTraces() {}

  /** The first line of {@code message}, without a native backtrace (an empty message stays empty). */
  public static String firstLine(String message) {
    if (message == null) return "";
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }

  /** Whether {@code message} came from native code with its backtrace appended. */
  public static boolean hasTrace(String message) {
    return message != null && message.contains("\nException raised from ");
  }

  /**
   * Drops the lines of native backtraces from a process's output, line by line: "Exception raised from",
   * "frame #N:" and the blank line that ends a trace. Not thread-safe: one per stream.
   */
  public static final class Filter {
    private boolean inTrace;

    public boolean keep(String line) {
      if (TRACE_LINE.matcher(line).matches()) {
        inTrace = true;
        return false;
      }
      boolean blankAfterTrace = inTrace && line.isBlank();
      inTrace = false;
      return !blankAfterTrace;
    }
  }
}
