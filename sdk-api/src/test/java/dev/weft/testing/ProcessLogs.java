package dev.weft.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** What a started process has written to its log file. */
public final class ProcessLogs {
  private ProcessLogs() {}

  /** Waits (up to 240 s, while {@code p} lives) until {@code log} contains {@code text}; fails with the log otherwise. */
  public static void awaitLine(Path log, String text, Process p) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    while (System.nanoTime() < deadline && p.isAlive()) {
      if (Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(text)) return;
      Thread.sleep(100);
    }
    throw new AssertionError("no '" + text + "' in " + log + ":\n" + (Files.exists(log) ? Files.readString(log) : ""));
  }
}
