package dev.weft.launch;

import dev.weft.WeftException;
import dev.weft.train.RunResult;
import dev.weft.train.StepListener;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs every rank of a spec as a thread of this JVM (one libtorch intra-op thread each), each with
 * its own connection to a rendezvous store on a free loopback port. What {@code .fit()} and the
 * multi-rank tests use; real processes are {@link LocalLauncher}'s job.
 */
public final class ThreadedRun {
  private ThreadedRun() {}

  /**
   * Runs all ranks; returns rank 0's result with the whole trained weights put together from every
   * rank's slices. A failure on any rank fails the whole run.
   */
  public static RunResult run(dev.weft.spec.TrainingSpec spec, Path runDir, Duration timeout, StepListener listener) {
    int world = spec.worldSize();
    List<RunResult> all = world == 1
        ? List.of(WorkerRun.run(spec, WorkerIdentity.single(), runDir, dev.weft.util.NativeThreads.perRank(1), timeout, listener))
        : onRanks(world, timeout, id -> WorkerRun.run(spec, id, runDir, 1, timeout, id.rank() == 0 ? listener : StepListener.NONE));
    return all.get(0).withWeights(dev.weft.models.Weights.assemble(all.stream().map(RunResult::slices).toList()));
  }

  /** Runs {@code body} once per rank, each on its own thread with its identity; returns results in rank order. */
  public static <T> List<T> onRanks(int world, Duration timeout, java.util.function.Function<WorkerIdentity, T> body) {
    int port = FreePort.find();
    ExecutorService pool = Executors.newFixedThreadPool(world, r -> {
      Thread t = new Thread(r, "weft-rank");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<T>> fs = new ArrayList<>();
      for (int r = 0; r < world; r++) {
        WorkerIdentity id = new WorkerIdentity(r, world, r, "127.0.0.1", port);
        fs.add(pool.submit(() -> {
          Thread.currentThread().setName("weft-rank-" + id.rank());
          dev.weft.util.NativeThreads.configure(1);
          return body.apply(id);
        }));
      }
      List<T> out = new ArrayList<>();
      long deadline = System.nanoTime() + timeout.toNanos() * 4;
      for (int r = 0; r < world; r++) {
        try {
          out.add(fs.get(r).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
          Throwable c = e.getCause();
          if (c instanceof RuntimeException re) throw re;
          throw new WeftException("rank " + r + " failed: " + c, c);
        } catch (TimeoutException e) {
          throw new WeftException("rank " + r + " did not finish in time; see the log for the rank that stopped", e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new WeftException("interrupted while waiting for rank " + r, e);
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
