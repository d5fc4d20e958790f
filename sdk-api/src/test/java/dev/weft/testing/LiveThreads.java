package dev.weft.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The threads of this JVM as the kernel sees them ({@code /proc/self/task}): Java's and native ones (Gloo's workers
 * and device loops, the store server's {@code pt_tcpstore_uv}, OpenMP's), which {@link Thread#getAllStackTraces}
 * does not show. Linux only; a thread that ends takes a moment to leave the list, so wait with {@link #settle}.
 */
public final class LiveThreads {
  private static final Path TASKS = Path.of("/proc/self/task");

  static { // -Dweft.threadsAtExit=FILE: the test JVM writes what threads it ends with (to measure a suite's leaks)
    String at = System.getProperty("weft.threadsAtExit");
    if (at != null && !at.isBlank()) Runtime.getRuntime().addShutdownHook(new Thread(() -> writeTo(Path.of(at))));
  }

  private LiveThreads() {}

  private static void writeTo(Path file) {
    try {
      Files.writeString(file, count() + " threads\n" + byName() + "\n");
    } catch (IOException | RuntimeException e) {
      // measuring only: a JVM that exits is not to fail for it
    }
  }

  public static boolean available() { return Files.isDirectory(TASKS); }

  /** How many threads this process has now. */
  public static int count() {
    try (Stream<Path> s = Files.list(TASKS)) {
      return (int) s.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How many threads have each name (a native thread inherits the name of the Java thread that made it). */
  public static Map<String, Long> byName() {
    try (Stream<Path> s = Files.list(TASKS)) {
      return s.map(LiveThreads::name).collect(Collectors.groupingBy(n -> n, TreeMap::new, Collectors.counting()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The thread count once it is at most {@code atMost}, or after {@code waitMs} (threads that end leave the list late). */
  public static int settle(int atMost, long waitMs) throws InterruptedException {
    long end = System.nanoTime() + waitMs * 1_000_000;
    int n = count();
    while (n > atMost && System.nanoTime() < end) {
      Thread.sleep(50);
      n = count();
    }
    return n;
  }

  private static String name(Path task) {
    try {
      return Files.readString(task.resolve("comm")).strip();
    } catch (IOException e) {
      return "(ended)";
    }
  }
}
