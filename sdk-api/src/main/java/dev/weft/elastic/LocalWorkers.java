package dev.weft.elastic;

import dev.weft.launch.JavaCommand;
import dev.weft.error.WeftException;
import dev.weft.launch.LocalLauncher;
import dev.weft.launch.StandbyHandoff;
import dev.weft.launch.WarmWorker;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The worker processes of one generation on this node: started together (warm standbys first, then new JVMs),
 * watched, stopped together. Each exit is timed when it happens (the JDK's reaper), not when a poll sees it.
 */
final class LocalWorkers {
  /** A worker by its global rank; {@code warm}: it was a standby handed this rank. */
  record Worker(int rank, Process process, boolean warm) {}

  private static final Set<String> OPERATOR_VARIABLES =
      Set.of("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK", "JOB_COMPLETION_INDEX");

  private final List<Worker> workers;
  private final Map<Integer, Long> exitedAtMs = new ConcurrentHashMap<>();

  private LocalWorkers(List<Worker> workers) {
    this.workers = workers;
    for (Worker w : workers) w.process().onExit().thenRun(() -> exitedAtMs.put(w.rank(), System.currentTimeMillis()));
  }

  /**
   * One worker per rank: a warm standby from {@code standbys} while there is one (handed the command's arguments and
   * {@code env(rank)}), else a new JVM with {@code env(rank)} added to this process's environment. Output goes to
   * {@code console} prefixed with the rank; {@code say} gets which pid runs which rank.
   */
  static LocalWorkers start(List<String> workerCommand, List<Integer> ranks, IntFunction<Map<String, String>> env, Standbys standbys,
                            PrintStream console, Consumer<String> say) {
    List<Worker> started = new ArrayList<>();
    try {
      for (int rank : ranks) {
        Worker w = handOff(standbys.take(), rank, workerCommand, env.apply(rank));
        if (w == null) w = cold(rank, workerCommand, env.apply(rank), console);
        started.add(w);
        say.accept("rank " + rank + " runs in pid " + w.process().pid() + (w.warm() ? " (a warm standby)" : " (a new JVM)"));
      }
    } catch (IOException e) {
      new LocalWorkers(started).stop(Duration.ZERO);
      throw new WeftException("cannot start a worker JVM: " + e.getMessage(), e);
    }
    return new LocalWorkers(List.copyOf(started));
  }

  /** Null when there is no standby or it died before taking the handoff. */
  private static Worker handOff(WarmWorker standby, int rank, List<String> workerCommand, Map<String, String> env) {
    if (standby == null) return null;
    try {
      return new Worker(rank, standby.handOff(rank, new StandbyHandoff(workerCommand.subList(1, workerCommand.size()), env)), true);
    } catch (IOException e) {
      standby.process().destroyForcibly(); // its pipe broke: it is gone or going
      return null;
    }
  }

  private static Worker cold(int rank, List<String> workerCommand, Map<String, String> env, PrintStream console) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(workerCommand)).redirectErrorStream(true);
    // the pod's own rank variables (an operator's RANK, MASTER_ADDR, PET_*) describe the node, not this worker
    pb.environment().keySet().removeIf(LocalWorkers::isOperatorVariable);
    pb.environment().putAll(env);
    Process p = pb.start();
    LocalLauncher.pump(rank, p, new java.util.ArrayDeque<>(), console);
    return new Worker(rank, p, false);
  }

  List<Worker> all() { return workers; }

  static boolean isOperatorVariable(String name) {
    return name.startsWith("PET_") || name.startsWith("MASTER_") || OPERATOR_VARIABLES.contains(name);
  }

  boolean allExited() { return workers.stream().noneMatch(w -> w.process().isAlive()); }

  /** When {@code w} exited (epoch ms), or 0 while it runs. */
  long exitedAtMs(Worker w) { return exitedAtMs.getOrDefault(w.rank(), 0L); }

  /** Returns when a live worker exits or after {@code timeout}: an exit is acted on at once, not at the next poll. */
  void awaitAnyExit(Duration timeout) {
    CompletableFuture<?>[] exits = workers.stream().filter(w -> w.process().isAlive()).map(w -> w.process().onExit())
        .toArray(CompletableFuture[]::new);
    try {
      if (exits.length == 0) return;
      CompletableFuture.anyOf(exits).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // nobody exited: the poll goes on
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGTERM to every live worker, SIGKILL to those still alive after {@code grace}; waits for them to go. */
  /** SIGTERM to every worker, streams left open (their stdin is their leash): each saves and exits by itself. */
  void terminate() {
    for (Worker w : workers) if (w.process().isAlive()) w.process().toHandle().destroy();
  }

  void stop(Duration grace) {
    for (Worker w : workers) if (w.process().isAlive()) w.process().destroy();
    long deadline = System.nanoTime() + grace.toNanos();
    for (Worker w : workers) {
      try {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !w.process().waitFor(left, TimeUnit.NANOSECONDS)) w.process().destroyForcibly();
        if (w.process().waitFor(10, TimeUnit.SECONDS)) closeInput(w.process());
      } catch (InterruptedException e) {
        w.process().destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The pipe to a worker's stdin (its parent watch, a standby's handoff): closed once it has exited. */
  private static void closeInput(Process p) {
    try {
      p.getOutputStream().close();
    } catch (IOException ignored) {
      // already broken: the process is gone
    }
  }

  void kill(Worker w) {
    w.process().destroyForcibly();
  }
}
