package dev.weft.bench;

import dev.weft.metrics.ProcessMemory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A command run in a JVM of its own whose peak resident set the OS reports: {@code PeakRss FILE MAIN ARGS...} runs
 * {@code MAIN.main(ARGS)} and, as the JVM exits (System.exit included), writes its VmHWM in bytes to FILE. So a bench
 * measures what a user's {@code weft ...} process peaks at, not what the bench's own JVM already holds.
 */
public final class PeakRss {
  private PeakRss() {}

  public static void main(String[] args) throws ReflectiveOperationException {
    Path out = Path.of(args[0]);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> write(out, ProcessMemory.peakRssBytes())));
    Class.forName(args[1]).getMethod("main", String[].class).invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
  }

  private static void write(Path out, long bytes) {
    try {
      Files.writeString(out, Long.toString(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs {@code mainAndArgs} in a child JVM (output to {@code log}) and returns its peak RSS in bytes. */
  static long of(List<String> mainAndArgs, Path log, long timeoutS) {
    Path peak = log.resolveSibling(log.getFileName() + ".peak");
    List<String> cmd = new java.util.ArrayList<>(List.of(PeakRss.class.getName(), peak.toString()));
    cmd.addAll(mainAndArgs);
    try {
      Process p = new ProcessBuilder(dev.weft.launch.JavaCommand.of(cmd)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(timeoutS, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(mainAndArgs + " took over " + timeoutS + " s; log: " + log);
      }
      if (p.exitValue() != 0) throw new IllegalStateException(mainAndArgs + " failed (exit " + p.exitValue() + "):\n" + Files.readString(log));
      return Long.parseLong(Files.readString(peak).trim());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + mainAndArgs, e);
    }
  }
}
