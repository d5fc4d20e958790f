package dev.weft.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * CPU time per training step of the processes that train (this JVM for {@code fit()}, its worker
 * JVMs for {@code launch()}), between two step counts seen in {@code metrics.jsonl}. CPU time is what
 * spinning pools waste, and unlike wall time it barely moves when other processes load the machine.
 * Linux only ({@code /proc/PID/stat}, 100 ticks a second); NaN where the marks were not both seen.
 */
final class TrainingCpu {
  private static final double MS_PER_TICK = 10.0;
  private static final long POLL_MS = 20;

  private final Path metrics;
  private final boolean workers;
  private final long from, to;
  private volatile double result = Double.NaN;
  private Thread sampler;

  /** Samples at {@code from} and {@code to} steps written (to &gt; from); {@code workers}: the child processes, else this one. */
  TrainingCpu(Path runDir, boolean workers, long from, long to) {
    this.metrics = runDir.resolve("metrics.jsonl");
    this.workers = workers;
    this.from = from;
    this.to = to;
  }

  /** Starts sampling on a daemon thread; the run's own deadline bounds it (it ends with the JVM). */
  TrainingCpu start() {
    sampler = new Thread(this::sample, "weft-bench-cpu");
    sampler.setDaemon(true);
    sampler.start();
    return this;
  }

  /** CPU ms per step between the two marks, or NaN; after the run, waits up to 2 s for the last sample. */
  double msPerStep() {
    try {
      sampler.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return result;
  }

  private void sample() {
    double atFrom = Double.NaN;
    while (true) {
      long steps = stepsWritten();
      if (Double.isNaN(atFrom) && steps >= from) atFrom = cpuMs();
      if (!Double.isNaN(atFrom) && steps >= to) {
        result = (cpuMs() - atFrom) / (steps - from);
        return;
      }
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private long stepsWritten() {
    try (Stream<String> lines = Files.lines(metrics)) {
      return lines.filter(l -> l.contains("\"step\"")).count();
    } catch (IOException | java.io.UncheckedIOException e) {
      return 0; // not written yet
    }
  }

  private double cpuMs() {
    List<ProcessHandle> ps = workers ? ProcessHandle.current().descendants().toList() : List.of(ProcessHandle.current());
    double ms = 0;
    for (ProcessHandle p : ps) ms += ticks(p.pid()) * MS_PER_TICK;
    return ms;
  }

  /** utime + stime of {@code pid}: fields 14 and 15 of /proc/PID/stat, counted after the parenthesised name. */
  private static long ticks(long pid) {
    try {
      String s = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException | RuntimeException e) {
      return 0; // the process ended between listing and reading
    }
  }
}
