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

  /**
   * NF4 to fp32 or bf16 ({@code bf16}): {@code codes} uint8[ceil(n/2)], element 2i in the high nibble and 2i+1 in the
   * low one; {@code absmax} fp32[ceil(n/64)]; out[i] = NF4 code value × absmax[i / 64] (QLoRA's table).
   */
  void dequantNf4(long codes, long absmax, long out, long n, boolean bf16);

  /** int8 [rows, cols] with an fp32 scale per row to fp32 or bf16: out = q × scale[row]. */
  void dequantInt8(long q, long scale, long out, long rows, long cols, boolean bf16);
}
