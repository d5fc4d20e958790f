package dev.weft.parallel.context;

import dev.weft.comm.Communicator;
import dev.weft.models.AttentionMask;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * Ring attention over the context-parallel group: this rank's queries (its two {@link Zigzag} chunks) meet
 * every rank's keys and values as the K/V blocks travel around the ring ({@link RingShift}: cp − 1 steps, the
 * next block's exchange in flight while the block in hand is computed), merged per query chunk by online
 * softmax ({@link BlockSoftmax}). Masks come from global positions: a key chunk after a query chunk is
 * skipped whole (half the blocks, which the zigzag spreads evenly), the diagonal chunk is causal, and a
 * window or documents (packed samples: every rank's ids gathered once per call) mask element-wise. K/V
 * travel with their own (grouped-query) heads and are repeated for the query heads after arriving.
 */
final class RingAttention implements ContextAttention {
  private final Communicator cp;
  private final Zigzag zig;
  private final RingShift shift;

  RingAttention(Communicator cp, CommTally tally) {
    this.cp = cp;
    this.zig = new Zigzag(cp.size(), cp.rank());
    this.shift = new RingShift(cp, tally);
  }

  @Override
  public Tensor apply(Tensor q, Tensor k, Tensor v, AttentionMask mask) {
    int n = cp.size(), r = cp.rank();
    long c = zig.chunkLength(q.size(2) * n);
    Tensor ids = mask.documents() == null ? null : ContextSplit.gatherIds(cp, mask.documents());
    BlockSoftmax[] acc = {new BlockSoftmax(q.size(3)), new BlockSoftmax(q.size(3))};
    Tensor block = torch.stack(new TensorVector(k, v), 0);
    for (int s = 0; s < n; s++) {
      RingShift.Pending next = s + 1 < n ? shift.start(block) : null;
      int src = (r - s + n) % n;
      for (int i = 0; i < 2; i++) addVisible(acc[i], q.narrow(2, i * c, c), zig.chunksOf(r)[i], i, block, src, c, mask.window(), ids);
      if (next != null) block = next.await();
    }
    return torch.cat(new TensorVector(acc[0].result(), acc[1].result()), 2);
  }

  /** The keys of {@code block} (rank {@code src}'s chunks) that query chunk {@code qChunk} may see, added to {@code acc}. */
  private void addVisible(BlockSoftmax acc, Tensor q, int qChunk, int qLocal, Tensor block, int src, long c, int window, Tensor ids) {
    int[] kChunks = zig.chunksOf(src);
    boolean[] seen = new boolean[2];
    int count = 0;
    for (int j = 0; j < 2; j++) {
      long gap = qChunk * c - (kChunks[j] * c + c - 1); // the nearest query-key distance
      seen[j] = kChunks[j] <= qChunk && (window == 0 || gap < window);
      if (seen[j]) count++;
    }
    if (count == 0) return;
    long first = seen[0] ? 0 : c, len = count * c;
    Tensor k = block.select(0, 0).narrow(2, first, len), v = block.select(0, 1).narrow(2, first, len);
    long rep = q.size(1) / k.size(1);
    if (rep > 1) {
      k = torch.repeat_interleave(k, rep, new LongOptional(1), new LongOptional());
      v = torch.repeat_interleave(v, rep, new LongOptional(1), new LongOptional());
    }
    boolean diagonal = (seen[0] && kChunks[0] == qChunk) || (seen[1] && kChunks[1] == qChunk);
    Tensor visible = diagonal || window > 0 || ids != null
        ? visible(q, qChunk, qLocal, kChunks, seen, src, c, window, ids) : null;
    acc.add(q, k, v, visible);
  }

  /** [c, n] by global positions (causal, window), or [B, 1, c, n] with documents. */
  private Tensor visible(Tensor q, int qChunk, int qLocal, int[] kChunks, boolean[] seen, int src, long c, int window, Tensor ids) {
    Tensor qpos = Zigzag.chunkPositions(qChunk, c, q).view(c, 1);
    TensorVector kp = new TensorVector();
    for (int j = 0; j < 2; j++) if (seen[j]) kp.push_back(Zigzag.chunkPositions(kChunks[j], c, q));
    Tensor kpos = torch.cat(kp, 0);
    long n = kpos.size(0);
    kpos = kpos.view(1, n);
    Tensor m = kpos.le(qpos);
    if (window > 0) m = m.logical_and(kpos.gt(qpos.sub(new Scalar(window))));
    if (ids == null) return m;
    long b = ids.size(0) / cp.size();
    Tensor qid = ids.narrow(0, cp.rank() * b, b).narrow(1, qLocal * c, c);
    Tensor kid = ids.narrow(0, src * b, b).narrow(1, seen[0] ? 0 : c, n);
    return qid.view(b, 1, c, 1).eq(kid.view(b, 1, 1, n)).logical_and(m.view(1, 1, c, n));
  }
}
