package dev.weft.parallel.data;

import dev.weft.comm.PendingOp;
import dev.weft.metrics.StepMetrics.ZeroComm;

/**
 * What {@link ShardedOptimizer}'s collectives cost one step: the time spent blocked on each kind
 * (communication that compute did not hide) and how much was issued. One per optimizer, read and
 * reset once a step.
 */
final class CommClock {
  enum Wait { GATHER, REDUCE, PARAM_GATHER }

  private final long[] waitNanos = new long[Wait.values().length];
  private int gathers;
  private long gatheredBytes;
  private int reductions;
  private long reducedBytes;
  private long replicatedBytes;

  /** Awaits {@code op}, charging the time blocked to {@code kind}. */
  void await(Wait kind, PendingOp op) {
    long t0 = System.nanoTime();
    try {
      op.await();
    } finally {
      waitNanos[kind.ordinal()] += System.nanoTime() - t0;
    }
  }

  void gatherIssued(long bytes) {
    gathers++;
    gatheredBytes += bytes;
  }

  /** A gradient reduction in the (shard) group of {@code bytes} on the wire. */
  void reductionIssued(long bytes) {
    reductions++;
    reducedBytes += bytes;
  }

  /** HSDP: a gradient shard's all-reduce across the replicate group. */
  void replicationIssued(long bytes) { replicatedBytes += bytes; }

  /** The step so far, and starts the next. */
  ZeroComm take() {
    ZeroComm z = new ZeroComm(ms(Wait.GATHER), ms(Wait.REDUCE), ms(Wait.PARAM_GATHER), gathers, mib(gatheredBytes),
        reductions, mib(reducedBytes), mib(replicatedBytes));
    java.util.Arrays.fill(waitNanos, 0);
    gathers = 0;
    gatheredBytes = 0;
    reductions = 0;
    reducedBytes = 0;
    replicatedBytes = 0;
    return z;
  }

  private static double mib(long bytes) { return bytes / (1024.0 * 1024.0); }

  private double ms(Wait w) { return waitNanos[w.ordinal()] / 1e6; }
}
