package dev.weft.parallel.context;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.models.moe.RouterLosses;
import dev.weft.models.moe.RouterPool;
import dev.weft.parallel.tensor.TpOps;
import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The router statistics summed over the cp group, so every cp rank's auxiliary and z losses are the whole
 * sequences' (as one rank computes them). The probability and z sums take the all-reduce both ways — Megatron's f
 * then g over the cp group ({@link TpOps}): the value is the group's sum, and the gradient of the pooled sums is
 * summed over the group too (each rank's loss term weighs the same pooled value by its own target count).
 */
public final class ContextRouterPool implements RouterPool {
  private final Communicator cp;
  private final TpOps ops;

  public ContextRouterPool(Communicator cp) {
    this.cp = cp;
    this.ops = new TpOps(cp);
  }

  @Override
  public void pool(RouterLosses stats) {
    if (stats.rows() == 0) return; // no MoE layer on this stage
    Tensor mine = stats.sums();
    Tensor tally = Tensors.ofDoubles(stats.tally()).to(mine.device(), ScalarType.Double);
    cp.allReduce(tally, ReduceOp.SUM);
    Tensor pooled = ops.reduceFromTp(ops.copyToTp(mine).contiguous());
    stats.replaceWith(pooled, Tensors.toDoubles(tally));
  }
}
