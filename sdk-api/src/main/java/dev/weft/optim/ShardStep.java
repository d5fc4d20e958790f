package dev.weft.optim;

import org.bytedeco.pytorch.Tensor;

/**
 * The element-wise Adam/AdamW update of one flat shard, in place: the seam between {@link ShardedOptimizer} (which
 * owns the shards and their reduction) and the kernel that updates them. {@link #LIBTORCH} is a handful of
 * vectorised libtorch passes (any device); the CUDA backend supplies Weft's fused kernel (one pass over p, g, m, v).
 * All four tensors are contiguous fp32 of equal length on one device; {@code g} already holds the scaled gradient.
 * The optimizer that is given a step closes it (a kernel may own a stream).
 */
@FunctionalInterface
public interface ShardStep extends AutoCloseable {
  void adam(AdamArgs a, Tensor p, Tensor g, Tensor m, Tensor v);

  /**
   * Multiplies every gradient shard by {@code factor} in place (loss-scale unscaling and clipping, before the update).
   * libtorch: one pass per shard; the CUDA backend: one multi-tensor launch over all of them that also checks for
   * inf/NaN. Called only after the global norm was found finite, so a non-finite gradient here is an error.
   */
  default void unscale(java.util.List<Tensor> grads, double factor) {
    org.bytedeco.pytorch.Scalar f = new org.bytedeco.pytorch.Scalar(factor);
    for (Tensor g : grads) g.mul_(f);
  }

  @Override
  default void close() {}

  ShardStep LIBTORCH = new TorchShardStep();
}
