package dev.weft.launch;

import dev.weft.error.WeftException;
import dev.weft.metrics.StepMetrics;
import dev.weft.train.StepListener;
import java.util.concurrent.Phaser;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stopping every rank thread of an in-process run together. The first failure (a rank's exception,
 * or an exception from the caller's {@code onStep}) records the reason; every rank meets the others at
 * each step boundary (a barrier between threads, no communication) and leaves there once a reason is
 * recorded, so no rank is left inside a collective waiting for one that has gone.
 */
final class RankStop {
  /** Thrown at a step boundary on every rank once the run is stopping. */
  static final class Stopped extends WeftException {
    Stopped(String reason) { super(reason); }
  }

  private final AtomicReference<String> reason = new AtomicReference<>();
  private final AtomicReference<RuntimeException> firstFailure = new AtomicReference<>();
  private final AtomicReference<RuntimeException> firstCause = new AtomicReference<>();
  private final Phaser boundary;
  private volatile long lastStep;
  private volatile double firstLoss = Double.NaN, lastLoss = Double.NaN;

  RankStop(int ranks) { this.boundary = new Phaser(ranks); }

  void request(String why) { reason.compareAndSet(null, why); }

  /** A rank's failure, kept in the order they happened. */
  void failed(String why, RuntimeException e) {
    request(why);
    firstFailure.compareAndSet(null, e);
    if (!(e instanceof dev.weft.comm.CommException)) firstCause.compareAndSet(null, e);
  }

  /**
   * The run's failure: the first that is not a collective's (a peer's timeout or lost connection is what a rank
   * sees of another's failure, and it may even come first: the failing rank can wait in a release before it
   * throws), else the first of all.
   */
  RuntimeException firstFailure() { return firstCause.get() != null ? firstCause.get() : firstFailure.get(); }

  String reason() { return reason.get(); }

  /** A rank thread ends (normally or not): the others no longer wait for it at boundaries. */
  void leave() { boundary.arriveAndDeregister(); }

  long lastStep() { return lastStep; }
  double firstLoss() { return firstLoss; }
  double lastLoss() { return lastLoss; }

  /** {@code inner} for rank {@code rank}, with the caller's exceptions turned into a stop and the boundary meeting added. */
  StepListener wrap(StepListener inner) {
    return new StepListener() {
      @Override public void onStep(StepMetrics m, long totalSteps) {
        lastStep = m.step();
        if (Double.isNaN(firstLoss)) firstLoss = m.loss();
        lastLoss = m.loss();
        try {
          inner.onStep(m, totalSteps);
        } catch (RuntimeException e) {
          request("onStep threw at step " + m.step() + ": " + e);
        }
      }
      @Override public void onRankStart(int rank, long localParameters) { inner.onRankStart(rank, localParameters); }
      @Override public void onRankStep(int rank, StepMetrics m, long totalSteps) { inner.onRankStep(rank, m, totalSteps); }
      @Override public void onMemory(int rank, long p, long g, long o) { inner.onMemory(rank, p, g, o); }
      @Override public void onDeviceMemory(int rank, dev.weft.metrics.DeviceMemory m) { inner.onDeviceMemory(rank, m); }
      @Override public void onExpertLoad(int rank, double[] load) { inner.onExpertLoad(rank, load); }
      @Override public void onCheckpointSaved(int rank, long step, java.time.Duration took) { inner.onCheckpointSaved(rank, step, took); }
      /**
       * A listener that throws here (the caller stopping the run, on rank 0's thread) still meets the others at this
       * boundary, so they leave with it: a rank that went straight on to release its groups would wait there for
       * ranks waiting here for it, until the release's deadline (a minute or more per stopped fit).
       */
      @Override public void atStepBoundary(int rank, long step) {
        RuntimeException own = null;
        try {
          inner.atStepBoundary(rank, step);
        } catch (RuntimeException e) {
          failed("rank " + rank + " failed: " + e.getMessage(), e); // as rankBody words it
          own = e;
        }
        boundary.arriveAndAwaitAdvance();
        if (own != null) throw own;
        String why = reason.get();
        if (why != null) throw new Stopped(why);
      }
    };
  }
}
