package dev.weft.elastic;

import dev.weft.error.WeftException;
import dev.weft.launch.LocalLauncher;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The worker processes of one generation on this node: started together, watched, stopped together. */
final class LocalWorkers {
  /** A worker by its global rank. */
  record Worker(int rank, Process process) {}

  private final List<Worker> workers;

  private LocalWorkers(List<Worker> workers) { this.workers = workers; }

  /**
   * Starts one JVM per rank with {@code env(rank)} added to this process's environment; their output
   * goes to {@code console} prefixed with the rank.
   */
  static LocalWorkers start(List<String> workerCommand, List<Integer> ranks, java.util.function.IntFunction<Map<String, String>> env,
                            PrintStream console) {
    List<Worker> started = new ArrayList<>();
    if (ranks.size() > 1) dev.weft.launch.NativeCache.prepare();
    try {
      for (int rank : ranks) {
        ProcessBuilder pb = new ProcessBuilder(LocalLauncher.javaCommand(workerCommand)).redirectErrorStream(true);
        // the pod's own rank variables (an operator's RANK, MASTER_ADDR, PET_*) describe the node, not this worker
        pb.environment().keySet().removeIf(LocalWorkers::isOperatorVariable);
        pb.environment().putAll(env.apply(rank));
        Process p = pb.start();
        started.add(new Worker(rank, p));
        pump(rank, p, console);
      }
    } catch (IOException e) {
      new LocalWorkers(started).stop(java.time.Duration.ZERO);
      throw new WeftException("cannot start a worker JVM: " + e.getMessage(), e);
    }
    return new LocalWorkers(List.copyOf(started));
  }

  List<Worker> all() { return workers; }

  static boolean isOperatorVariable(String name) {
    return name.startsWith("PET_") || name.startsWith("MASTER_")
        || java.util.Set.of("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK", "JOB_COMPLETION_INDEX")
            .contains(name);
  }

  boolean allExited() { return workers.stream().noneMatch(w -> w.process().isAlive()); }

  /** SIGTERM to every live worker, SIGKILL to those still alive after {@code grace}; waits for them to go. */
  void stop(java.time.Duration grace) {
    for (Worker w : workers) if (w.process().isAlive()) w.process().destroy();
    long deadline = System.nanoTime() + grace.toNanos();
    for (Worker w : workers) {
      try {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !w.process().waitFor(left, TimeUnit.NANOSECONDS)) w.process().destroyForcibly();
        w.process().waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        w.process().destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  void kill(Worker w) {
    w.process().destroyForcibly();
  }

  private static void pump(int rank, Process p, PrintStream console) {
    LocalLauncher.pump(rank, p, new java.util.ArrayDeque<>(), console);
  }
}
