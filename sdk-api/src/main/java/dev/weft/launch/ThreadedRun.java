package dev.weft.launch;

import dev.weft.comm.WorkerIdentity;
import dev.weft.error.WeftException;
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

/**
 * Runs every rank of a spec as a thread of this JVM (one libtorch intra-op thread each), each with
 * its own connection to a rendezvous store on a free loopback port. What {@code .fit()} and the
 * multi-rank tests use; real processes are {@link LocalLauncher}'s job. There is no wall-clock limit
 * on the run: only the collectives' own timeouts bound a wait. Any rank's failure, or an exception
 * from {@code onStep}, stops every rank at the next step boundary ({@link RankStop}); a stopped run
 * leaves {@code summary.json} with {@code status: stopped} and the reason.
 */
public final class ThreadedRun {
  private ThreadedRun() {}

  /**
   * Runs all ranks; returns rank 0's result with the whole trained weights put together from every
   * rank's slices. A failure on any rank stops the whole run and is rethrown.
   */
  public static RunResult run(dev.weft.spec.TrainingSpec spec, Path runDir, Duration timeout, StepListener listener) {
    int world = spec.worldSize();
    RankStop stop = new RankStop(world);
    try {
      List<RunResult> all = world == 1
          ? List.of(rankBody(stop, 0, () -> WorkerRun.run(spec, WorkerIdentity.single(), runDir,
              dev.weft.util.NativeThreads.perRank(1), timeout, stop.wrap(listener))))
          : onRanks(world, stop, id -> WorkerRun.run(spec, id, runDir, 1, timeout,
              stop.wrap(id.rank() == 0 ? listener : StepListener.NONE)));
      return all.get(0).withWeights(dev.weft.models.Weights.assemble(all.stream().map(RunResult::slices).toList()));
    } catch (dev.weft.train.TrainingDivergedException | dev.weft.train.RunPreemptedException e) {
      throw e; // every rank stopped at the same step; rank 0 wrote the summary (status diverged or preempted)
    } catch (RuntimeException e) {
      if (stop.reason() != null) writeStopped(spec, runDir, stop);
      throw e instanceof RankStop.Stopped s ? new WeftException("the run stopped: " + s.getMessage(), s.getCause()) : e;
    }
  }

  /** Runs {@code body} once per rank, each on its own thread with its identity; returns results in rank order. */
  public static <T> List<T> onRanks(int world, Duration timeout, java.util.function.Function<WorkerIdentity, T> body) {
    return onRanks(world, new RankStop(world), body);
  }

  private static <T> List<T> onRanks(int world, RankStop stop, java.util.function.Function<WorkerIdentity, T> body) {
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
          return rankBody(stop, id.rank(), () -> body.apply(id));
        }));
      }
      List<T> out = new ArrayList<>();
      RuntimeException first = null;
      for (int r = 0; r < world; r++) { // every rank ends: at a boundary once stopped, or at a collective's timeout
        try {
          out.add(fs.get(r).get());
        } catch (ExecutionException e) {
          RuntimeException f = e.getCause() instanceof RuntimeException re ? re : new WeftException("rank " + r + " failed: " + e.getCause(), e.getCause());
          if (first == null || (first instanceof RankStop.Stopped && !(f instanceof RankStop.Stopped))) first = f;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new WeftException("interrupted while waiting for rank " + r, e);
        }
      }
      if (first != null) throw stop.firstFailure() != null ? stop.firstFailure() : first; // the cause, not a peer's timeout
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  /** One rank's body: a failure becomes the run's stop reason; leaving releases the others at boundaries. */
  private static <T> T rankBody(RankStop stop, int rank, java.util.function.Supplier<T> body) {
    try {
      return body.get();
    } catch (RankStop.Stopped e) {
      throw e;
    } catch (RuntimeException e) {
      stop.failed("rank " + rank + " failed: " + e.getMessage(), e);
      throw e;
    } catch (Error e) {
      stop.request("rank " + rank + " failed: " + e.getMessage());
      throw e;
    } finally {
      stop.leave();
    }
  }

  private static void writeStopped(dev.weft.spec.TrainingSpec spec, Path runDir, RankStop stop) {
    var p = spec.parallel();
    java.util.Map<String, Integer> mesh = new java.util.LinkedHashMap<>();
    mesh.put("dp", p.dp());
    mesh.put("tp", p.tp());
    mesh.put("pp", p.pp());
    double first = Double.isNaN(stop.firstLoss()) ? 0 : stop.firstLoss(), last = Double.isNaN(stop.lastLoss()) ? 0 : stop.lastLoss();
    dev.weft.metrics.MetricsJson.writeSummary(runDir, new dev.weft.metrics.RunSummary("stopped", stop.lastStep(), p.worldSize(), mesh,
        first, last, 0, 0, 0, 0, false, 0, spec.precision().dtype(), p.zero(), null, 0, stop.reason(), 0, null));
  }
}
