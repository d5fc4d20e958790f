package dev.weft.parallel.context;

import static org.bytedeco.pytorch.global.torch.scaled_dot_product_attention;

import dev.weft.comm.Communicator;
import dev.weft.models.AttentionMask;
import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * All-gather context parallelism (as Llama 3 was trained): every rank's K and V (their own, grouped-query,
 * heads) gathered once per layer into the whole sequence, and each of this rank's two {@link Zigzag} query
 * chunks attends in ONE fused attention call to the keys before its end — chunk j sees keys [0, (j+1)·c), the
 * queries being the last c of them, so the plain causal/window/document mask applies as at one rank (a window
 * also trims the keys no query of the chunk reaches). Nothing is merged, so libtorch's fused kernel does all
 * the work; the price is the whole sequence's K/V on every rank. The kernel takes the grouped K/V heads as they
 * are (not repeated per query head), and without documents the same additive chunk masks serve every layer
 * ({@link ChunkMasks}), so a rank saves for backward its tokens' share and one copy of the gathered K/V per layer
 * (measured: CpActivationMemoryTest). Backward, the K/V gradients are reduce-scattered back to their owners
 * ({@link KvGather}).
 */
final class AllGatherAttention implements ContextAttention {
  private final Communicator cp;
  private final Zigzag zig;
  private final KvGather gather;
  private final ChunkMasks masks = new ChunkMasks();

  AllGatherAttention(Communicator cp, CommTally tally) {
    this.cp = cp;
    this.zig = new Zigzag(cp.size(), cp.rank());
    this.gather = new KvGather(cp, tally);
  }

  @Override
  public Tensor apply(Tensor q, Tensor k, Tensor v, AttentionMask mask) {
    long c = zig.chunkLength(q.size(2) * cp.size());
    Tensor kv = zig.inPositionOrder(gather.gather(torch.stack(new TensorVector(k, v), 0)), 3); // [2, B, KV, T, d]
    Tensor ids = mask.documents() == null ? null : allIds(mask.documents());
    if (ids != null && ids.min().item_long() == ids.max().item_long()) ids = null; // one document (a plain batch): the held masks serve
    TensorVector outs = new TensorVector();
    for (int i = 0; i < 2; i++) {
      int chunk = zig.chunksOf(cp.rank())[i];
      long end = (chunk + 1) * c;
      long start = mask.window() > 0 ? Math.max(0, chunk * c - mask.window() + 1) : 0; // earlier keys are out of every query's window
      Tensor ks = kv.select(0, 0).narrow(2, start, end - start), vs = kv.select(0, 1).narrow(2, start, end - start);
      Tensor qs = q.narrow(2, i * c, c);
      Tensor m = ids == null ? masks.additive(mask.withDocuments(null), c, end - start, q) : mask.withDocuments(ids.narrow(1, start, end - start)).visible(c, end - start, q);
      outs.push_back(scaled_dot_product_attention(qs, ks, vs, new TensorOptional(m), 0.0, false, new DoubleOptional(), true));
    }
    return torch.cat(outs, 2);
  }

  /** Every rank's document ids [B, T/cp] → [B, T] in position order. */
  private Tensor allIds(Tensor local) {
    long b = local.size(0), t = local.size(1);
    return zig.inPositionOrder(ContextSplit.gatherIds(cp, local).view(cp.size(), b, t), 1);
  }
}
