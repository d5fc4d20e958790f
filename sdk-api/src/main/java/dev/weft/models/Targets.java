package dev.weft.models;

import dev.weft.data.Batches;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** Which targets count in a loss: every one but {@link Batches#IGNORE}. */
public final class Targets {
  private Targets() {}

  /** True where {@code targets} holds a target, on their device. */
  public static Tensor mask(Tensor targets) { return targets.ne(new Scalar(Batches.IGNORE)); }

  /** How many targets {@code targets} holds (reads the tensor back: count host tensors). */
  public static long count(Tensor targets) { return mask(targets).sum().item_long(); }

  /** A summed loss over the mean of its targets, on the device (NaN where there is none, as PyTorch's mean). */
  public static Tensor mean(Tensor sum, Tensor targets) {
    return sum.div(mask(targets).sum().to(sum.scalar_type()));
  }
}
