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

  @Override
  default void close() {}

  ShardStep LIBTORCH = new TorchShardStep();
}
