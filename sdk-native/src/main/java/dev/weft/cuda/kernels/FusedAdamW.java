package dev.weft.cuda.kernels;

import dev.weft.cuda.CudaStream;

/**
 * The fused Adam/AdamW step over flat fp32 shards (param, grad, exp_avg, exp_avg_sq), optionally writing a
 * bfloat16 copy of the updated parameters. One read and one write of each buffer per step.
 */
public final class FusedAdamW {
  private final AdamWConfig config;
  private final Kernels kernels;

  public FusedAdamW(AdamWConfig config, Kernels kernels) {
    this.config = config;
    this.kernels = kernels;
  }

  /** On the GPU: addresses are device addresses; the step is queued on {@code stream}. */
  public static FusedAdamW onDevice(AdamWConfig config, CudaStream stream) {
    return new FusedAdamW(config, new DeviceKernels(stream));
  }

  /** The C++ CPU reference: addresses are host addresses. */
  public static FusedAdamW reference(AdamWConfig config) {
    return new FusedAdamW(config, new ReferenceKernels());
  }

  public AdamWConfig config() { return config; }

  /**
   * Step number {@code step} (1 for the first step: it sets the bias correction) over {@code n} elements.
   * {@code bf16Out} is 0 or the address of n bfloat16 values that receive the new parameters.
   */
  public void step(long step, long param, long grad, long expAvg, long expAvgSq, long bf16Out, long n) {
    kernels.adamStep(config, step, param, grad, expAvg, expAvgSq, bf16Out, n);
  }

  /** Bytes of memory traffic one step moves: read p, g, m, v; write p, m, v; plus the bf16 copy. */
  public static long bytesMoved(long n, boolean bf16Out) {
    return n * (7L * Float.BYTES + (bf16Out ? 2 : 0));
  }
}
