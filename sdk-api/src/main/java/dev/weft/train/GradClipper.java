package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters.Param;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Global gradient norm across the whole model, and clipping to a maximum. Replicated parameters are
 * counted once; the squares of split parameters are summed over the model-parallel group, so every
 * rank sees the same norm and scales by the same factor.
 */
public final class GradClipper {
  private GradClipper() {}

  /** Returns the global norm before clipping; scales gradients in place when it exceeds {@code maxNorm} (> 0). */
  public static double clip(List<Param> params, double maxNorm, Communicator modelParallel) {
    try (NoGradGuard ng = new NoGradGuard()) {
      Tensor sharded = dev.weft.util.Tensors.zeros(torch.ScalarType.Double, 1);
      Tensor whole = dev.weft.util.Tensors.zeros(torch.ScalarType.Double, 1);
      for (Param p : params) {
        Tensor g = p.tensor().grad();
        if (!g.defined()) continue;
        Tensor sq = g.to(torch.ScalarType.Double).pow(new Scalar(2)).sum();
        (p.isSharded() ? sharded : whole).add_(sq);
      }
      if (modelParallel != null && modelParallel.size() > 1) modelParallel.allReduce(sharded, ReduceOp.SUM);
      double norm = Math.sqrt(sharded.add(whole).item_double());
      if (maxNorm > 0 && norm > maxNorm) {
        Scalar f = new Scalar(maxNorm / (norm + 1e-6));
        for (Param p : params) {
          Tensor g = p.tensor().grad();
          if (g.defined()) g.mul_(f);
        }
      }
      return norm;
    }
  }
}
