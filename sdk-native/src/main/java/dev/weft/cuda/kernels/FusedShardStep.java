package dev.weft.cuda.kernels;

import dev.weft.optim.AdamArgs;
import dev.weft.optim.ShardStep;
import java.util.List;
import org.bytedeco.pytorch.Tensor;

/**
 * The sharded optimizer's Adam update through Weft's fused kernel ({@link TensorAdamW}): one pass over p, g, m, v
 * per flat shard, on the shard's device (CUDA tensors: the kernel; CPU tensors: its C++ reference, same formula).
 * Unscaling goes through the multi-tensor unscale + inf-check kernel ({@link TensorUnscale}): one launch for every
 * shard. Owns the kernels' stream; the CUDA backend hands one to each optimizer.
 */
public final class FusedShardStep implements ShardStep {
  private final TensorAdamW adam = TensorAdamW.perStep();
  private final TensorUnscale unscale = new TensorUnscale();

  @Override
  public void adam(AdamArgs a, Tensor p, Tensor g, Tensor m, Tensor v) {
    adam.step(config(a), a.step(), p, g, m, v, null);
  }

  @Override
  public void unscale(List<Tensor> grads, double factor) {
    if (unscale.apply(grads, (float) factor)) {
      throw new IllegalStateException("a gradient shard holds inf or NaN after the global gradient norm was finite:"
          + " the gradients changed between the norm and the step");
    }
  }

  /** Whether the steps so far ran Weft's CUDA kernel (false: its C++ reference, for CPU tensors). */
  public boolean onDevice() { return adam.onDevice(); }

  /** The kernel's fp32 hyper-parameters for one step. */
  static AdamWConfig config(AdamArgs a) {
    return new AdamWConfig((float) a.lr(), (float) a.beta1(), (float) a.beta2(), (float) a.eps(), (float) a.weightDecay(),
        a.decoupled());
  }

  @Override
  public void close() {
    adam.close();
    unscale.close();
  }
}
