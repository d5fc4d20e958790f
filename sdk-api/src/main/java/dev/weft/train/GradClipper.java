package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters.Param;
import dev.weft.util.Tensors;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * Global gradient norm and clipping over per-parameter gradients (libtorch's layout), the way the
 * sharded optimizer computes it over its flat buffers: one float32 dot product per gradient, summed
 * in double with a single read-back; split parameters summed over the model-parallel group,
 * replicated ones counted once. Used by the step benchmark's plain-loop variant.
 */
public final class GradClipper {
  private GradClipper() {}

  /** Returns the global norm before clipping; scales gradients in place when it exceeds {@code maxNorm} (> 0). */
  public static double clip(List<Param> params, double maxNorm, Communicator modelParallel) {
    try (NoGradGuard ng = new NoGradGuard()) {
      TensorVector split = new TensorVector(), whole = new TensorVector();
      for (Param p : params) {
        Tensor g = p.tensor().grad();
        if (!g.defined()) continue;
        Tensor flat = g.reshape(-1);
        (p.isSharded() ? split : whole).push_back(flat.dot(flat).reshape(1));
      }
      Tensor splitSum = Tensors.ofDoubles(sum(split));
      if (modelParallel != null && modelParallel.size() > 1) modelParallel.allReduce(splitSum, ReduceOp.SUM);
      double norm = Math.sqrt(splitSum.item_double() + sum(whole));
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

  private static double sum(TensorVector parts) {
    return parts.size() == 0 ? 0 : torch.cat(parts).to(torch.ScalarType.Double).sum().item_double();
  }
}
