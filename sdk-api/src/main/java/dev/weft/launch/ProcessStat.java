package dev.weft.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A process's scheduler state from {@code /proc/PID/stat} (R, S, D, T, t, Z, ...); '?' where it cannot be read. */
final class ProcessStat {
  private ProcessStat() {}

  static char state(long pid) {
    try {
      return parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException | RuntimeException e) {
      return '?';
    }
  }

  /** The state field: the first non-space character after the command name's closing parenthesis. */
  static char parse(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0 || close + 2 >= stat.length()) return '?';
    return stat.charAt(close + 2);
  }
}
