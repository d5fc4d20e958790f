package dev.weft.comm;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.pytorch.Tensor;

/** Wraps a communicator and counts the payload bytes handed to each kind of operation (for benchmarks). */
public final class CountingCommunicator implements Communicator {
  private final Communicator inner;
  private final AtomicLong allReduceBytes = new AtomicLong();
  private final AtomicLong allGatherBytes = new AtomicLong();
  private final AtomicLong reduceScatterBytes = new AtomicLong();
  private final AtomicLong otherBytes = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();

  public CountingCommunicator(Communicator inner) { this.inner = inner; }

  private static long bytes(Tensor t) { return t.numel() * t.element_size(); }

  public long allReduceBytes() { return allReduceBytes.get(); }
  public long allGatherBytes() { return allGatherBytes.get(); }
  public long reduceScatterBytes() { return reduceScatterBytes.get(); }
  public long totalBytes() { return allReduceBytes.get() + allGatherBytes.get() + reduceScatterBytes.get() + otherBytes.get(); }
  public long calls() { return calls.get(); }

  @Override public String name() { return inner.name(); }
  @Override public int rank() { return inner.rank(); }
  @Override public int size() { return inner.size(); }
  @Override public Duration timeout() { return inner.timeout(); }

  @Override
  public PendingOp allReduceAsync(Tensor t, ReduceOp op) {
    calls.incrementAndGet();
    allReduceBytes.addAndGet(bytes(t));
    return inner.allReduceAsync(t, op);
  }

  /** Counted as the output size (what each rank ends up holding). */
  @Override
  public PendingOp allGatherAsync(Tensor out, Tensor in) {
    calls.incrementAndGet();
    allGatherBytes.addAndGet(bytes(out));
    return inner.allGatherAsync(out, in);
  }

  /** Counted as the input size (what each rank contributes). */
  @Override
  public PendingOp reduceScatterAsync(Tensor out, Tensor in) {
    calls.incrementAndGet();
    reduceScatterBytes.addAndGet(bytes(in));
    return inner.reduceScatterAsync(out, in);
  }

  /** Counted as the input size (what this rank sends, its own rows included). */
  @Override
  public PendingOp allToAllAsync(Tensor out, Tensor in, long[] outSplits, long[] inSplits) {
    calls.incrementAndGet();
    otherBytes.addAndGet(bytes(in));
    return inner.allToAllAsync(out, in, outSplits, inSplits);
  }

  @Override
  public void broadcast(Tensor t, int root) {
    calls.incrementAndGet();
    otherBytes.addAndGet(bytes(t));
    inner.broadcast(t, root);
  }

  @Override
  public PendingOp sendAsync(Tensor t, int dst, int tag) {
    calls.incrementAndGet();
    otherBytes.addAndGet(bytes(t));
    return inner.sendAsync(t, dst, tag);
  }

  @Override
  public PendingOp recvAsync(Tensor t, int src, int tag) {
    calls.incrementAndGet();
    return inner.recvAsync(t, src, tag);
  }

  @Override public void barrier() { inner.barrier(); }
  @Override public void close() { inner.close(); }
}
