package dev.weft.parallel.tensor;

import dev.weft.comm.ReduceOp;
import dev.weft.models.ChunkedCrossEntropy;
import dev.weft.models.Targets;
import org.bytedeco.pytorch.ScalarTypeOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * Cross-entropy over logits whose vocabulary is split across the tensor-parallel group, without
 * ever forming the full logits on one rank: the max is reduced across ranks (detached: a constant
 * shift changes no gradient), then the sum of exponentials and the target logit together, in one
 * all-reduce of both (the same sums as two).
 */
final class VocabParallelCrossEntropy {
  private final TpOps ops;
  private final VocabRange range;

  VocabParallelCrossEntropy(TpOps ops, VocabRange range) {
    this.ops = ops;
    this.range = range;
  }

  /** This rank's block of the vocabulary and the group's reductions, for the chunked head. */
  ChunkedCrossEntropy.Vocab vocab() {
    return new ChunkedCrossEntropy.Vocab() {
      @Override public void max(Tensor rowMax) { if (ops.size() > 1) ops.allReduce(rowMax, ReduceOp.MAX); }
      @Override public void sum(Tensor rowSums) { if (ops.size() > 1) ops.allReduce(rowSums, ReduceOp.SUM); }
      @Override public Tensor owns(Tensor targets) { return range.owns(targets); }
      @Override public Tensor localIds(Tensor targets, Tensor owned) { return range.localIds(targets, owned); }
    };
  }

  /**
   * The loss summed over the targets; {@code localLogits} [B, T, V/tp], {@code targets} [B, T], where
   * {@link dev.weft.data.Batches#IGNORE} marks no target (owned by no rank; its row adds nothing).
   */
  Tensor lossSum(Tensor localLogits, Tensor targets) {
    Tensor logits = localLogits.reshape(-1, range.size());
    Tensor tg = targets.reshape(-1);
    Tensor max = logits.detach().amax(new long[] {-1}, true);
    if (ops.size() > 1) ops.allReduce(max, ReduceOp.MAX);
    Tensor shifted = logits.sub(max);
    Tensor sumExp = shifted.exp().sum(new long[] {-1}, false, new ScalarTypeOptional());
    Tensor owned = range.owns(tg);
    Tensor picked = shifted.gather(1, range.localIds(tg, owned).unsqueeze(1)).squeeze(1);
    Tensor targetPart = picked.mul(owned.to(picked.scalar_type()));
    Tensor both = ops.reduceFromTp(torch.stack(new TensorVector(sumExp, targetPart)));
    Tensor perToken = both.select(0, 0).log().sub(both.select(0, 1));
    return perToken.mul(Targets.mask(tg).to(perToken.scalar_type())).sum();
  }
}
