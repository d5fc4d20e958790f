package dev.weft.cuda.kernels;

/**
 * Weft's kernels over raw addresses: device addresses for {@link DeviceKernels}, host addresses for
 * {@link ReferenceKernels}. Both implementations compute the same results (the GPU check compares them).
 */
public interface Kernels {
  /** {@code device} or {@code reference}, for messages. */
  String name();

  /** One Adam/AdamW step over {@code n} fp32 elements; {@code bf16Out} 0 or a buffer of n bfloat16. */
  void adamStep(AdamWConfig c, long step, long param, long grad, long expAvg, long expAvgSq, long bf16Out, long n);

  /** Multiplies every fp32 element by {@code invScale}; sets the fp32 at {@code foundInf} to 1 if any was inf/NaN. */
  void unscaleCheck(long[] tensors, long[] sizes, float invScale, long foundInf);

  void cast(CastKind kind, long src, long dst, long n);

  /** Copies the tensors (sizes in elements of {@code elemSize} bytes) back to back into {@code bucket}. */
  void pack(long[] tensors, long[] sizes, int elemSize, long bucket);

  void unpack(long[] tensors, long[] sizes, int elemSize, long bucket);
}
