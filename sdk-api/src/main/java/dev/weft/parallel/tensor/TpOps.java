package dev.weft.parallel.tensor;

import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.ReduceOp;
import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.TensorVector;
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
  private final BackwardHolds holds = new BackwardHolds();
  private final TensorTensorHook allReduceGrad;
  private final TensorTensorHook reduceScatterSeqGrad;
  private final TensorTensorHook allGatherSeqGrad;

  public TpOps(Communicator tp) {
    this.tp = tp;
    allReduceGrad = keep(new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        Tensor arg = new Tensor(g);
        Tensor t = arg.contiguous().clone(); // the hook's argument may be shared: never reduce it in place
        arg.close();
        dev.weft.util.HookArgument.done(g);
        await(startAllReduce(t));
        return t;
      }
    });
    // grad of the gathered sequence → this rank's chunk of the sum over ranks, in position
    reduceScatterSeqGrad = keep(new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        Tensor t = new Tensor(g);
        dev.weft.util.HookArgument.done(g);
        return startReduceScatterPlaced(t, false).await(); // the hook's argument may be shared
      }
    });
    // grad of the full-sequence tensor, zero outside this rank's chunk → the all-gather of every rank's chunk
    allGatherSeqGrad = keep(new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        Tensor t = new Tensor(g);
        dev.weft.util.HookArgument.done(g);
        return allGatherSeq(chunk(t).contiguous(), null);
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

  /** The per-call hooks of {@link ColumnLinear}, held until their backward has run. */
  BackwardHolds holds() { return holds; }

  /**
   * Releases the hooks of finished forwards and of forwards whose backward never ran (a forward under
   * grad mode whose loss was not differentiated). Call between steps, when no backward is pending.
   */
  public void dropPendingHooks() { holds.dropAll(); }

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
    Tensor full = gatherSequenceUnhooked(x);
    if (tp.size() > 1 && full.requires_grad()) full.register_hook(reduceScatterSeqGrad);
    return full;
  }

  /**
   * The forward of {@link #gatherSequence} without its backward collective: every rank's chunk from
   * one all-gather, concatenated along the sequence with this rank's own chunk being {@code x}
   * itself, so x's gradient is its chunk of the gradient arriving here, which must already be summed
   * over the group (what {@link #startReduceScatterPlaced} produces).
   */
  Tensor gatherSequenceUnhooked(Tensor x) {
    if (tp.size() == 1) return x;
    return allGatherSeq(x.detach().contiguous(), x);
  }

  /** A gradient collective in flight; {@link #await} returns the gradient to pass on. */
  interface PendingGrad {
    Tensor await();
  }

  /**
   * Reduce-scatter of the gradient of a gathered sequence: its result is this rank's chunk of the sum,
   * in position; the other chunks are left unspecified (they belong to the other ranks' chunks, which
   * are constants here). With {@code owned} the result is written into {@code full} itself.
   */
  PendingGrad startReduceScatterPlaced(Tensor full, boolean owned) {
    Tensor ranksFirst = ranksFirst(full);
    Tensor mine = Tensors.emptyLike(full, full.scalar_type(), full.size(0), full.size(1) / tp.size(), full.size(2));
    PendingOp op = timedStart(() -> tp.reduceScatterAsync(mine, ranksFirst));
    return () -> {
      await(op);
      Tensor out = owned ? full : torch.empty_like(full);
      chunk(out).copy_(mine);
      return out;
    };
  }

  /** [B, T, H] (partial sums) → [B, T/tp, H]: reduce-scatter forward, all-gather backward. */
  public Tensor scatterSequence(Tensor z) {
    if (tp.size() == 1) return z;
    Tensor mine = Tensors.emptyLike(z, z.scalar_type(), z.size(0), z.size(1) / tp.size(), z.size(2));
    Tensor ranksFirst = ranksFirst(z.detach());
    await(timedStart(() -> tp.reduceScatterAsync(mine, ranksFirst)));
    if (!z.requires_grad()) return mine;
    Tensor zh = z.view_as(z);
    zh.register_hook(allGatherSeqGrad);
    Tensor part = chunk(zh);
    return mine.add(part.sub(part.detach()));
  }

  /**
   * [..., V/tp] → [..., V]: every rank's block of the vocabulary gathered along the last dimension, this rank's own
   * block being {@code local} itself, so its gradient is its block of the gradient arriving here — right where every
   * rank computes the same loss from the same full logits (Megatron's gather, split backward).
   */
  public Tensor gatherVocab(Tensor local) {
    if (tp.size() == 1) return local;
    Tensor mine = local.detach().contiguous();
    long[] shape = mine.sizes().vec().get();
    long b = shape[0];
    long[] allShape = shape.clone();
    allShape[0] = tp.size() * b; // dim 0 by rank, as the collective lays it out
    Tensor all = Tensors.emptyLike(mine, mine.scalar_type(), allShape);
    await(timedStart(() -> tp.allGatherAsync(all, mine)));
    TensorVector parts = new TensorVector();
    for (int r = 0; r < tp.size(); r++) parts.push_back(r == tp.rank() ? local : all.narrow(0, r * b, b));
    return torch.cat(parts, shape.length - 1);
  }

  /** This rank's chunk of a [B, T, H] tensor along the sequence. */
  public Tensor chunk(Tensor full) {
    long n = full.size(1) / tp.size();
    return full.narrow(1, tp.rank() * n, n);
  }

  /**
   * Collectives split dim 0 by rank: [B, T, H] → [tp·B, T/tp, H], rank r's sequence chunk in rows
   * r·B to (r+1)·B (one copy; the gather side needs none, see {@link #allGatherSeq}).
   */
  private Tensor ranksFirst(Tensor full) {
    long b = full.size(0), n = full.size(1) / tp.size(), h = full.size(2);
    return full.reshape(b, tp.size(), n, h).transpose(0, 1).contiguous().view(tp.size() * b, n, h);
  }

  /**
   * Every rank's [B, T/tp, H] chunk gathered into [tp·B, T/tp, H] (dim 0 by rank) and concatenated
   * along the sequence: one copy. {@code own}, when given, stands in for this rank's chunk.
   */
  private Tensor allGatherSeq(Tensor mine, Tensor own) {
    long b = mine.size(0);
    Tensor all = Tensors.emptyLike(mine, mine.scalar_type(), tp.size() * b, mine.size(1), mine.size(2));
    await(timedStart(() -> tp.allGatherAsync(all, mine)));
    TensorVector parts = new TensorVector();
    for (int r = 0; r < tp.size(); r++) parts.push_back(r == tp.rank() && own != null ? own : all.narrow(0, r * b, b));
    return torch.cat(parts, 1);
  }
}
