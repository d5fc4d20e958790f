package dev.weft.parallel.context;

import dev.weft.comm.PendingOp;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.pytorch.Tensor;

/**
 * What a context-parallel method's exchanges cost a rank: the nanoseconds it waited on them (what compute did
 * not hide) and the bytes it sent and received, read and reset once a step. One per rank, shared by the method's
 * pieces, so every method reports its exposed communication the same way.
 */
final class CommTally {
  private final AtomicLong waitNanos = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  /** Counts {@code t}'s bytes once sent and once received. */
  void moved(Tensor t) { moved(t, 1); }

  /** Counts {@code t}'s bytes {@code times} sent and as often received. */
  void moved(Tensor t, long times) { bytes.addAndGet(2 * times * t.numel() * t.element_size()); }

  /** Waits for {@code ops} in order, counting the wait. */
  void await(PendingOp... ops) {
    long t0 = System.nanoTime();
    for (PendingOp op : ops) op.await();
    waited(t0);
  }

  /** Counts the time since {@code startNanos} as waiting. */
  void waited(long startNanos) { waitNanos.addAndGet(System.nanoTime() - startNanos); }

  /** Nanoseconds spent waiting since the last call. */
  long takeWaitNanos() { return waitNanos.getAndSet(0); }

  /** Bytes sent and received since the last call. */
  long takeBytes() { return bytes.getAndSet(0); }
}
