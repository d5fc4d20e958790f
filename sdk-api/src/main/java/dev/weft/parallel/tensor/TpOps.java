package dev.weft.parallel.tensor;

import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.ReduceOp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.global.torch;

/**
 * The conjugate communication operators of tensor parallelism (Megatron's f and g, and their
 * sequence-parallel forms), built from tensor hooks and detach arithmetic because custom autograd
 * functions are out of reach from Java:
 *
 * <ul>
 *   <li>{@link #copyToTp} (f): identity forward, all-reduce of the gradient backward — before a
 *       column-parallel layer, whose input gradient is partial on each rank ({@link ColumnLinear}
 *       starts that all-reduce itself and computes the weight gradient while it runs);
 *   <li>{@link #reduceFromTp} (g): all-reduce forward, identity backward — after a row-parallel layer;
 *   <li>{@link #gatherSequence}: all-gather along the sequence forward, reduce-scatter backward;
 *   <li>{@link #scatterSequence}: reduce-scatter along the sequence forward, all-gather backward.
 * </ul>
 *
 * g sums in place into its input's storage and returns it: the value changes, the graph does not
 * (its producer must not have saved it, which holds for linear and embedding outputs). Every wait on
 * the group is timed: {@link #takeWaitNanos} is the communication a step was exposed to. The hook
 * objects are created once and kept here: libtorch only holds them weakly through JavaCPP, and a
 * collected hook breaks backward.
 */
public final class TpOps {
  private final Communicator tp;
  private final List<Object> keepAlive = new ArrayList<>();
  private final AtomicLong waitNanos = new AtomicLong();
  private final AtomicLong overlapped = new AtomicLong();
  private final java.util.Set<Object> awaitingBackward = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final TensorTensorHook allReduceGrad;
  private final TensorTensorHook reduceScatterSeqGrad;
  private final TensorTensorHook allGatherSeqGrad;

  public TpOps(Communicator tp) {
    this.tp = tp;
    allReduceGrad = keep(new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        Tensor t = new Tensor(g).contiguous().clone(); // the hook's argument may be shared: never reduce it in place
        await(startAllReduce(t));
        return t;
      }
    });
    // grad of the padded full-sequence tensor → this rank's chunk of the sum over ranks, placed back in position
    reduceScatterSeqGrad = keep(new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        return startReduceScatterPlaced(new Tensor(g)).await();
      }
    });
    // grad of the full-sequence tensor, zero outside this rank's chunk → the all-gather of every rank's chunk
    allGatherSeqGrad = keep(new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        return allGatherSeq(chunk(new Tensor(g)).contiguous());
      }
    });
  }

  private <T> T keep(T o) {
    keepAlive.add(o);
    return o;
  }

  public int size() { return tp.size(); }
  public Communicator communicator() { return tp; }
  public int rank() { return tp.rank(); }

  /**
   * Nanoseconds this rank spent waiting on tensor-parallel collectives since the last call: the
   * blocking forward ones whole, the backward ones only for what the weight gradients did not hide.
   */
  public long takeWaitNanos() { return waitNanos.getAndSet(0); }

  /** Weight gradients computed while their layer's input-gradient collective was in flight (since construction). */
  public long overlappedWeightGradients() { return overlapped.get(); }

  void countOverlapped() { overlapped.incrementAndGet(); }

  /** Keeps a forward's per-call hooks reachable until its backward has run them all. */
  void holdUntilBackward(Object hooks) { awaitingBackward.add(hooks); }

  void backwardDone(Object hooks) { awaitingBackward.remove(hooks); }

  /**
   * Drops the hooks of forwards whose backward never ran (a forward under grad mode whose loss was
   * not differentiated). Call between steps, when no backward is pending.
   */
  public void dropPendingHooks() { awaitingBackward.clear(); }

  /** Waits for {@code op}, counting the wait as exposed communication. */
  void await(PendingOp op) {
    long t0 = System.nanoTime();
    try {
      op.await();
    } finally {
      waitNanos.addAndGet(System.nanoTime() - t0);
    }
  }

  /** Starts summing {@code t} (contiguous) over the group in place. */
  PendingOp startAllReduce(Tensor t) { return timedStart(() -> tp.allReduceAsync(t, ReduceOp.SUM)); }

  /** Sums {@code t} (contiguous) over the group in place, waiting for it. */
  void allReduce(Tensor t, ReduceOp op) { await(timedStart(() -> tp.allReduceAsync(t, op))); }

  /** Handing an operation to Gloo costs time on this thread too (a fixed cost per call): it counts as exposed. */
  private PendingOp timedStart(java.util.function.Supplier<PendingOp> start) {
    long t0 = System.nanoTime();
    try {
      return start.get();
    } finally {
      waitNanos.addAndGet(System.nanoTime() - t0);
    }
  }

  /** f: identity forward, all-reduce backward. */
  public Tensor copyToTp(Tensor x) {
    if (tp.size() == 1) return x;
    Tensor y = x.view_as(x);
    if (y.requires_grad()) y.register_hook(allReduceGrad);
    return y;
  }

  /** g: all-reduce forward (in place, see the class comment), identity backward. */
  public Tensor reduceFromTp(Tensor z) {
    if (tp.size() == 1) return z;
    if (!z.is_contiguous()) z = z.contiguous();
    try (NoGradGuard ng = new NoGradGuard()) {
      allReduce(z.detach(), ReduceOp.SUM);
    }
    return z;
  }

  /** [B, T/tp, H] → [B, T, H]: all-gather forward, reduce-scatter backward. */
  public Tensor gatherSequence(Tensor x) {
    if (tp.size() == 1) return x;
    Gathered g = gather(x);
    if (g.padded() != null) g.padded().register_hook(reduceScatterSeqGrad);
    return g.out();
  }

  /**
   * The forward of {@link #gatherSequence} without its backward collective: the gradient arriving at
   * the result must already be this rank's chunk of the sum, placed in position and zero elsewhere
   * (what {@link #startReduceScatterPlaced} produces).
   */
  Tensor gatherSequenceUnhooked(Tensor x) { return tp.size() == 1 ? x : gather(x).out(); }

  /** The gathered sequence, and (when x needs a gradient) x zero-padded to it: the path its gradient takes. */
  private record Gathered(Tensor out, Tensor padded) {}

  private Gathered gather(Tensor x) {
    Tensor gathered = allGatherSeq(x.detach().contiguous());
    if (!x.requires_grad()) return new Gathered(gathered, null);
    // place x in its chunk differentiably: d(padded)/dx is the chunk of the incoming gradient
    Tensor padded = placeInChunk(x, gathered);
    return new Gathered(gathered.add(padded.sub(padded.detach())), padded);
  }

  /** A gradient collective in flight; {@link #await} returns the gradient to pass on. */
  interface PendingGrad {
    Tensor await();
  }

  /** Reduce-scatter of a full-sequence gradient, its result placed in this rank's chunk of a zero tensor. */
  PendingGrad startReduceScatterPlaced(Tensor full) {
    Tensor seqFirst = full.transpose(0, 1).contiguous();
    long[] shape = seqFirst.sizes().vec().get();
    shape[0] /= tp.size();
    Tensor mine = torch.empty(shape);
    PendingOp op = timedStart(() -> tp.reduceScatterAsync(mine, seqFirst));
    return () -> {
      await(op);
      Tensor out = torch.zeros_like(full);
      chunk(out).copy_(mine.transpose(0, 1));
      return out;
    };
  }

  /** [B, T, H] (partial sums) → [B, T/tp, H]: reduce-scatter forward, all-gather backward. */
  public Tensor scatterSequence(Tensor z) {
    if (tp.size() == 1) return z;
    Tensor mine = reduceScatterSeq(z.detach().contiguous());
    if (!z.requires_grad()) return mine;
    Tensor zh = z.view_as(z);
    zh.register_hook(allGatherSeqGrad);
    Tensor part = chunk(zh);
    return mine.add(part.sub(part.detach()));
  }

  /** This rank's chunk of a [B, T, H] tensor along the sequence. */
  public Tensor chunk(Tensor full) {
    long n = full.size(1) / tp.size();
    return full.narrow(1, tp.rank() * n, n);
  }

  private Tensor placeInChunk(Tensor x, Tensor like) {
    long n = x.size(1), t = like.size(1);
    long before = tp.rank() * n, after = t - before - n;
    return torch.constant_pad_nd(x, new long[] {0, 0, before, after}, new org.bytedeco.pytorch.Scalar(0.0));
  }

  // Collectives work on dim 0: move the sequence there and back.
  private Tensor allGatherSeq(Tensor x) {
    Tensor seqFirst = x.transpose(0, 1).contiguous();
    long[] shape = seqFirst.sizes().vec().get();
    shape[0] *= tp.size();
    Tensor out = torch.empty(shape);
    await(timedStart(() -> tp.allGatherAsync(out, seqFirst)));
    return out.transpose(0, 1).contiguous();
  }

  private Tensor reduceScatterSeq(Tensor full) {
    Tensor seqFirst = full.transpose(0, 1).contiguous();
    long[] shape = seqFirst.sizes().vec().get();
    shape[0] /= tp.size();
    Tensor out = torch.empty(shape);
    await(timedStart(() -> tp.reduceScatterAsync(out, seqFirst)));
    return out.transpose(0, 1).contiguous();
  }
}
