package dev.weft.cuda.kernels;

import dev.weft.optim.AdamArgs;
import dev.weft.optim.ShardStep;
import org.bytedeco.pytorch.Tensor;

/**
 * The sharded optimizer's Adam update through Weft's fused kernel ({@link TensorAdamW}): one pass over p, g, m, v
 * per flat shard, on the shard's device (CUDA tensors: the kernel; CPU tensors: its C++ reference, same formula).
 * Owns the kernel's stream; the CUDA backend hands one to each optimizer.
 */
public final class FusedShardStep implements ShardStep {
  private final TensorAdamW adam = TensorAdamW.perStep();

  @Override
  public void adam(AdamArgs a, Tensor p, Tensor g, Tensor m, Tensor v) {
    adam.step(config(a), a.step(), p, g, m, v, null);
  }

  /** Whether the steps so far ran Weft's CUDA kernel (false: its C++ reference, for CPU tensors). */
  public boolean onDevice() { return adam.onDevice(); }

  /** The kernel's fp32 hyper-parameters for one step. */
  static AdamWConfig config(AdamArgs a) {
    return new AdamWConfig((float) a.lr(), (float) a.beta1(), (float) a.beta2(), (float) a.eps(), (float) a.weightDecay(),
        a.decoupled());
  }

  @Override
  public void close() { adam.close(); }
}
