package dev.weft.launch;

import dev.weft.comm.HostPlan;
import dev.weft.comm.WorkerIdentity;
import dev.weft.error.WeftException;
import dev.weft.comm.RunToken;
import dev.weft.util.NativeTraces;
import dev.weft.log.JsonLine;
import dev.weft.log.LogFormat;
import dev.weft.preempt.GracePeriod;
import dev.weft.preempt.Preemption;
import dev.weft.train.TrainingDivergedException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts this host's worker JVMs (like {@code torchrun}; all ranks with {@code --standalone}), prefixes their output
 * with the rank, and ends when they end. If one fails, the others are stopped and the failure is
 * reported with the rank and its last error. Ctrl-C (or any exit of this JVM) stops them too.
 */
public final class LocalLauncher {
  /** Outcome: 0 when every worker exited 0; otherwise the failing rank and why. */
  public record Outcome(int exitCode, int failedRank, String reason) {
    public boolean ok() { return exitCode == 0; }
  }

  private static final int LAST_LINES = 30;

  private final List<String> workerCommand;
  private final Map<String, String> extraEnv;
  private final PrintStream console;
  private final List<Process> live = new java.util.concurrent.CopyOnWriteArrayList<>();
  private GracePeriod grace = GracePeriod.of(System.getenv(), 0);

  /**
   * @param workerCommand the command after {@code java -cp CP}, e.g. the main class and its arguments
   */
  public LocalLauncher(List<String> workerCommand, Map<String, String> extraEnv, PrintStream console) {
    this.workerCommand = List.copyOf(workerCommand);
    this.extraEnv = Map.copyOf(extraEnv);
    this.console = console;
  }

  /** The grace period between SIGTERM and SIGKILL (the spec's {@code deployment.terminationGraceSeconds}; the environment's wins). */
  public LocalLauncher grace(int specSeconds) {
    this.grace = GracePeriod.of(System.getenv(), specSeconds);
    return this;
  }

  /** All {@code nproc} ranks on this machine, rank 0's store on a free loopback port. */
  public Outcome run(int nproc, int threadsPerWorker) {
    return run(HostPlan.single(nproc, FreePort.find()), threadsPerWorker);
  }

  /**
   * This host's ranks of {@code plan} (global rank = node rank × nproc + local rank), like torchrun on one
   * node. Output is prefixed with the global rank; the first rank to fail stops the others. A one-host
   * run gets a fresh run token ({@link RunToken}); the hosts of a multi-host run share the one their
   * environment gives them, if any.
   */
  public Outcome run(HostPlan plan, int threadsPerWorker) {
    int nproc = plan.nprocPerNode();
    String token = plan.nnodes() == 1 ? RunToken.generate() : null;
    List<Process> procs = new java.util.concurrent.CopyOnWriteArrayList<>(); // the SIGTERM handler reads it
    List<Deque<String>> tails = new ArrayList<>();
    List<Thread> pumps = new ArrayList<>();
    Thread stopper = new Thread(() -> stopAll(procs), "weft-stop-workers");
    Runtime.getRuntime().addShutdownHook(stopper);
    // SIGTERM: the workers get it too, save at the next step boundary and exit 0; this JVM waits for them
    try (Preemption.Guard sigterm = Preemption.guard("the launcher", grace.superviseDeadline());
         Preemption.Action forward = Preemption.onTerm(() -> forwardTerm(procs))) {
      for (int local = 0; local < nproc; local++) {
        WorkerIdentity id = plan.worker(local);
        ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(workerCommand)).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.putAll(LogFormat.childEnv()); // the worker writes the launcher's format from its first line
        env.putAll(extraEnv);
        env.putAll(id.toEnv());
        if (token != null) env.put(RunToken.ENV, token);
        env.putAll(nativeEnv(threadsPerWorker, env)); // the allocator as this worker's own environment asks (a caller's MALLOC_CONF stays)
        env.put(ParentWatch.ENV, "1");
        Process p;
        try {
          p = pb.start();
        } catch (IOException e) {
          throw new WeftException("cannot start worker " + id.rank() + " (" + pb.command().get(0) + "): " + e.getMessage(), e);
        }
        procs.add(p);
        live.add(p);
        Deque<String> tail = new ArrayDeque<>();
        tails.add(tail);
        pumps.add(pump(id.rank(), p, tail, console));
      }
      return watch(procs, tails, pumps, plan.worker(0).rank());
    } finally {
      stopAll(procs);
      try {
        Runtime.getRuntime().removeShutdownHook(stopper);
      } catch (IllegalStateException ignored) {
        // already shutting down: the hook is running
      }
    }
  }

  /**
   * What a worker process's native code reads as it loads, whoever starts it (this launcher, an elastic agent): its
   * intra-op threads, OpenMP's wait policy (PASSIVE: a spinning idle team costs other ranks on shared cores up to 5×),
   * and its C allocator ({@link Allocator}).
   */
  public static Map<String, String> nativeEnv(int threads) { return nativeEnv(threads, System.getenv()); }

  /** As {@link #nativeEnv(int)} for a worker whose environment is otherwise {@code given}. */
  public static Map<String, String> nativeEnv(int threads, Map<String, String> given) {
    Map<String, String> env = new java.util.LinkedHashMap<>();
    env.put("WEFT_THREADS", String.valueOf(threads));
    env.put("OMP_WAIT_POLICY", "PASSIVE");
    env.put("OMP_NUM_THREADS", String.valueOf(threads));
    env.put("OPENBLAS_NUM_THREADS", String.valueOf(threads));
    env.putAll(Allocator.workerEnv(given));
    return env;
  }

  /** The worker processes started so far, in rank order (for supervision and tests). */
  public List<ProcessHandle> workers() {
    return live.stream().map(Process::toHandle).toList();
  }

  /**
   * A worker's line as this launcher prints it: prefixed with the rank in text; in JSON, a worker's JSON
   * line as it is and anything else it printed (native code, the JVM) as an object with its rank.
   */
  static String relayed(int rank, String line) {
    boolean standby = rank < 0; // a warm worker not yet handed a rank
    if (!LogFormat.json()) return (standby ? "[standby] " : "[rank " + rank + "] ") + line;
    return JsonLine.isObject(line) ? line
        : JsonLine.format(java.time.Instant.now(), "INFO", standby ? null : rank, null, standby ? "standby" : "stdout", line);
  }

  /** Set to 1 to relay the native backtraces workers print (for bug reports); by default they are dropped. */
  public static final String KEEP_TRACES_ENV = "WEFT_NATIVE_TRACES";

  /** Copies a worker's output to {@code console} prefixed with its rank, keeping its last lines in {@code tail}. */
  public static Thread pump(int rank, Process p, Deque<String> tail, PrintStream console) {
    return pump(() -> rank, p, tail, console);
  }

  /** As {@link #pump(int, Process, Deque, PrintStream)} for a process whose rank may change (a standby's: -1 until handed one). */
  public static Thread pump(java.util.function.IntSupplier rankNow, Process p, Deque<String> tail, PrintStream console) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        NativeTraces.Filter traces = new NativeTraces.Filter();
        boolean keepTraces = "1".equals(System.getenv(KEEP_TRACES_ENV));
        while ((line = r.readLine()) != null) {
          if (!keepTraces && !traces.keep(line)) continue; // a rank's failure stays one line, not 24 native frames
          synchronized (tail) {
            tail.addLast(line);
            if (tail.size() > LAST_LINES) tail.removeFirst();
          }
          synchronized (console) {
            console.println(relayed(rankNow.getAsInt(), line));
          }
        }
      } catch (IOException ignored) {
        // the process is gone; its exit code tells the story
      }
    }, "weft-log-pid-" + p.pid());
    t.setDaemon(true);
    t.start();
    return t;
  }

  private Outcome watch(List<Process> procs, List<Deque<String>> tails, List<Thread> pumps, int firstRank) {
    while (true) {
      boolean allDone = true;
      for (int r = 0; r < procs.size(); r++) {
        Process p = procs.get(r);
        if (p.isAlive()) {
          allDone = false;
          continue;
        }
        int code = p.exitValue();
        if (code != 0) {
          String hung = hungPeers(procs, firstRank);
          procs.forEach(Process::destroyForcibly); // a SIGTERM would ask them to save first, and their peer is gone
          stopAll(procs);
          join(pumps.get(r));
          int rank = firstRank + r;
          return new Outcome(code == 2 || code == TrainingDivergedException.EXIT_CODE ? code : 1, rank, "rank " + rank + " " + describeExit(code) + lastError(tails.get(r)) + hung);
        }
      }
      if (allDone) {
        pumps.forEach(LocalLauncher::join);
        return new Outcome(0, -1, "");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stopAll(procs);
        return new Outcome(130, -1, "interrupted");
      }
    }
  }

  /**
   * Ranks still alive but stopped (state T or t in /proc: SIGSTOP, a debugger), named as the hang
   * behind a peer's collective timeout; "" when there are none or /proc cannot tell.
   */
  static String hungPeers(List<Process> procs, int firstRank) {
    List<String> stopped = new ArrayList<>();
    for (int r = 0; r < procs.size(); r++) {
      Process p = procs.get(r);
      if (p.isAlive() && isStopped(ProcessStat.state(p.pid()))) stopped.add(String.valueOf(firstRank + r));
    }
    if (stopped.isEmpty()) return "";
    return "; rank " + String.join(", ", stopped) + " stopped making progress (process stopped by a signal or debugger): a hang, not an exit";
  }

  static boolean isStopped(char state) { return state == 'T' || state == 't'; }

  public static String describeExit(int code) {
    if (code > 128 && code < 160) {
      int sig = code - 128;
      String name = switch (sig) {
        case 9 -> "SIGKILL";
        case 15 -> "SIGTERM";
        case 6 -> "SIGABRT";
        case 11 -> "SIGSEGV";
        case 2 -> "SIGINT";
        default -> "signal " + sig;
      };
      return "was killed by " + name + " (exit code " + code + ")";
    }
    return "exited with code " + code;
  }

  private static String lastError(Deque<String> tail) {
    List<String> lines;
    synchronized (tail) {
      lines = new ArrayList<>(tail);
    }
    for (int i = lines.size() - 1; i >= 0; i--) {
      String l = lines.get(i);
      if (l.contains("ERROR") || l.contains("Exception") || l.contains("Error:") || l.startsWith("weft:")) {
        return "; last error: " + l.strip();
      }
    }
    return lines.isEmpty() ? "" : "; last output: " + lines.get(lines.size() - 1).strip();
  }

  /** The launcher was told to stop: so is every worker (each saves at the same step boundary and exits 0). */
  private void forwardTerm(List<Process> procs) {
    synchronized (console) {
      console.println("weft: SIGTERM: the workers save an emergency checkpoint at the next step boundary and stop");
    }
    procs.forEach(p -> p.toHandle().destroy()); // Process.destroy() would also close its stdin: ParentWatch halts on that
  }

  private static void stopAll(List<Process> procs) {
    for (Process p : procs) if (p.isAlive()) p.destroy();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Process p : procs) {
      try {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !p.waitFor(left, TimeUnit.NANOSECONDS)) p.destroyForcibly();
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    for (Process p : procs) {
      try {
        p.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void join(Thread t) {
    try {
      t.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
