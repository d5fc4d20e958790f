package dev.weft.cuda.kernels;

import dev.weft.cuda.jni.KernelLib;

/** The casts the kernels offer, with their element sizes. Rounding is to nearest even; NaN stays NaN. */
public enum CastKind {
  F32_TO_BF16(KernelLib.F32_TO_BF16, 4, 2),
  BF16_TO_F32(KernelLib.BF16_TO_F32, 2, 4),
  F32_TO_F16(KernelLib.F32_TO_F16, 4, 2),
  F16_TO_F32(KernelLib.F16_TO_F32, 2, 4);

  public final int code;
  public final int srcBytes;
  public final int dstBytes;

  CastKind(int code, int srcBytes, int dstBytes) {
    this.code = code;
    this.srcBytes = srcBytes;
    this.dstBytes = dstBytes;
  }
}
