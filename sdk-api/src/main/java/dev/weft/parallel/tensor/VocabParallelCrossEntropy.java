package dev.weft.parallel.tensor;

import dev.weft.comm.ReduceOp;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Cross-entropy over logits whose vocabulary is split across the tensor-parallel group, without
 * ever forming the full logits on one rank: the max, the sum of exponentials and the target logit
 * are each reduced across ranks (max detached: a constant shift changes no gradient).
 */
final class VocabParallelCrossEntropy {
  private final TpOps ops;
  private final VocabRange range;

  VocabParallelCrossEntropy(TpOps ops, VocabRange range) {
    this.ops = ops;
    this.range = range;
  }

  /** Mean loss; {@code localLogits} [B, T, V/tp], {@code targets} [B, T]. */
  Tensor loss(Tensor localLogits, Tensor targets) {
    Tensor logits = localLogits.reshape(-1, range.size());
    Tensor tg = targets.reshape(-1);
    Tensor max = logits.detach().amax(new long[] {-1}, true);
    if (ops.size() > 1) maxAcross(max);
    Tensor shifted = logits.sub(max);
    Tensor sumExp = ops.reduceFromTp(shifted.exp().sum(new long[] {-1}, false, new org.bytedeco.pytorch.ScalarTypeOptional()));
    Tensor owned = range.owns(tg);
    Tensor picked = shifted.gather(1, range.localIds(tg, owned).unsqueeze(1)).squeeze(1);
    Tensor targetLogit = ops.reduceFromTp(picked.mul(owned.to(picked.scalar_type())));
    return sumExp.log().sub(targetLogit).mean();
  }

  private void maxAcross(Tensor max) {
    Tensor c = max.contiguous();
    opsComm().allReduce(c, ReduceOp.MAX);
    max.copy_(c);
  }

  private dev.weft.comm.Communicator opsComm() { return ops.communicator(); }
}
