package dev.weft.parallel.context;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.models.moe.RouterLosses;
import dev.weft.models.moe.RouterPool;
import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The router statistics summed over the cp group, so every cp rank's auxiliary and z losses are the whole
 * sequences' (as one rank computes them). The probability and z sums are a differentiable all-reduce: the value
 * is the group's sum, the gradient of the pooled sums is summed over the group too (each rank's loss term weighs
 * the same pooled value by its own target count) and handed to this rank's part unchanged.
 */
public final class ContextRouterPool implements RouterPool {
  private final Communicator cp;
  private final TensorTensorHook sumGradients;

  public ContextRouterPool(Communicator cp) {
    this.cp = cp;
    this.sumGradients = new TensorTensorHook() { // held for the run: libtorch holds hooks weakly
      @Override
      public TensorBase call(TensorBase g) {
        Tensor all = new Tensor(g).contiguous().clone();
        cp.allReduce(all, ReduceOp.SUM);
        return all;
      }
    };
  }

  @Override
  public void pool(RouterLosses stats) {
    if (stats.rows() == 0) return; // no MoE layer on this stage
    long[] counts = stats.counts();
    double[] tally = new double[counts.length + 1];
    for (int e = 0; e < counts.length; e++) tally[e] = counts[e];
    tally[counts.length] = stats.rows();
    Tensor mine = stats.sums();
    Tensor totals = Tensors.ofDoubles(tally).to(mine.device(), ScalarType.Double);
    cp.allReduce(totals, ReduceOp.SUM);
    double[] summed = Tensors.toDoubles(totals);
    long[] pooledCounts = new long[counts.length];
    for (int e = 0; e < counts.length; e++) pooledCounts[e] = Math.round(summed[e]);

    Tensor all = mine.detach().contiguous().clone();
    cp.allReduce(all, ReduceOp.SUM);
    Tensor pooled = mine.add(all.sub(mine.detach())); // the group's value; the gradient flows to this rank's part
    if (mine.requires_grad()) pooled.register_hook(sumGradients);
    stats.replaceWith(pooled, pooledCounts, Math.round(summed[counts.length]));
  }
}
