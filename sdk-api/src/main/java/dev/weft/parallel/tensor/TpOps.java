package dev.weft.parallel.tensor;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import java.util.ArrayList;
import java.util.List;
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
 *       column-parallel layer, whose input gradient is partial on each rank;
 *   <li>{@link #reduceFromTp} (g): all-reduce forward, identity backward — after a row-parallel layer;
 *   <li>{@link #gatherSequence}: all-gather along the sequence forward, reduce-scatter backward;
 *   <li>{@link #scatterSequence}: reduce-scatter along the sequence forward, all-gather backward.
 * </ul>
 *
 * g is written {@code s + (z - z.detach())}, never {@code z + (s - z).detach()}: the latter loses
 * the sum under cancellation. The hook objects are created once and kept here: libtorch only holds
 * them weakly through JavaCPP, and a collected hook breaks backward.
 */
public final class TpOps {
  private final Communicator tp;
  private final List<Object> keepAlive = new ArrayList<>();
  private final TensorTensorHook allReduceGrad;
  private final TensorTensorHook reduceScatterSeqGrad;
  private final TensorTensorHook allGatherSeqGrad;

  public TpOps(Communicator tp) {
    this.tp = tp;
    allReduceGrad = keep(new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        Tensor t = new Tensor(g).contiguous().clone();
        tp.allReduce(t, ReduceOp.SUM);
        return t;
      }
    });
    // grad of the padded full-sequence tensor → this rank's chunk of the sum over ranks, placed back in position
    reduceScatterSeqGrad = keep(new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase g) {
        Tensor full = new Tensor(g);
        Tensor mine = reduceScatterSeq(full);
        Tensor out = torch.zeros_like(full);
        chunk(out).copy_(mine);
        return out;
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

  /** f: identity forward, all-reduce backward. */
  public Tensor copyToTp(Tensor x) {
    if (tp.size() == 1) return x;
    Tensor y = x.view_as(x);
    if (y.requires_grad()) y.register_hook(allReduceGrad);
    return y;
  }

  /** g: all-reduce forward, identity backward. */
  public Tensor reduceFromTp(Tensor z) {
    if (tp.size() == 1) return z;
    Tensor s = z.detach().contiguous().clone();
    tp.allReduce(s, ReduceOp.SUM);
    return s.add(z.sub(z.detach()));
  }

  /** [B, T/tp, H] → [B, T, H]: all-gather forward, reduce-scatter backward. */
  public Tensor gatherSequence(Tensor x) {
    if (tp.size() == 1) return x;
    Tensor gathered = allGatherSeq(x.detach().contiguous());
    if (!x.requires_grad()) return gathered;
    // place x in its chunk differentiably: d(padded)/dx is the chunk of the incoming gradient
    Tensor padded = placeInChunk(x, gathered);
    padded.register_hook(reduceScatterSeqGrad);
    return gathered.add(padded.sub(padded.detach()));
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
    Tensor out = dev.weft.util.Tensors.emptyLike(seqFirst, seqFirst.scalar_type(), shape);
    tp.allGather(out, seqFirst);
    return out.transpose(0, 1).contiguous();
  }

  private Tensor reduceScatterSeq(Tensor full) {
    Tensor seqFirst = full.transpose(0, 1).contiguous();
    long[] shape = seqFirst.sizes().vec().get();
    shape[0] /= tp.size();
    Tensor out = dev.weft.util.Tensors.emptyLike(seqFirst, seqFirst.scalar_type(), shape);
    tp.reduceScatter(out, seqFirst);
    return out.transpose(0, 1).contiguous();
  }
}
