package dev.weft.parallel.tensor;

import static org.bytedeco.pytorch.global.torch.cat;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters.Param;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;

/**
 * Sums, across the tensor-parallel group, the gradients of replicated parameters that each rank
 * saw only for its slice of the sequence (LayerNorms, position embedding and row biases under
 * sequence parallelism). One flat all-reduce for all of them.
 */
public final class PartialGrads {
  private PartialGrads() {}

  public static void allReduce(List<Param> partial, Communicator tp) {
    if (partial.isEmpty() || tp.size() == 1) return;
    try (NoGradGuard ng = new NoGradGuard()) {
      TensorVector parts = new TensorVector();
      for (Param p : partial) parts.push_back(p.tensor().grad().reshape(-1));
      Tensor flat = cat(parts);
      tp.allReduce(flat, ReduceOp.SUM);
      long off = 0;
      for (Param p : partial) {
        long n = p.numel();
        p.tensor().grad().copy_(flat.narrow(0, off, n).view_as(p.tensor()));
        off += n;
      }
    }
  }
}
