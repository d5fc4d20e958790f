package dev.weft.cuda.kernels;

import dev.weft.cuda.NativeLibraries;
import dev.weft.cuda.jni.KernelLib;

/** The C++ CPU references of the kernels, over host addresses. Needs no GPU. */
public final class ReferenceKernels implements Kernels {
  public ReferenceKernels() { NativeLibraries.requireKernels(); }

  @Override public String name() { return "reference"; }

  @Override
  public void adamStep(AdamWConfig c, long step, long param, long grad, long expAvg, long expAvgSq, long bf16Out, long n) {
    check(KernelLib.weft_adam_step_ref(param, grad, expAvg, expAvgSq, bf16Out, n, c.lr(), c.beta1(), c.beta2(), c.eps(),
        c.weightDecay(), c.decoupled() ? 1 : 0, step), "adam step (n=" + n + ", step=" + step + "; step counts from 1)");
  }

  @Override
  public void unscaleCheck(long[] tensors, long[] sizes, float invScale, long foundInf) {
    TensorLists.requireSameLength(tensors, sizes);
    check(KernelLib.weft_unscale_check_ref(tensors, sizes, tensors.length, invScale, foundInf), "unscale");
  }

  @Override
  public void cast(CastKind kind, long src, long dst, long n) {
    check(KernelLib.weft_cast_ref(kind.code, src, dst, n), "cast " + kind + " (n=" + n + ")");
  }

  @Override
  public void dequantNf4(long codes, long absmax, long out, long n, boolean bf16) {
    check(KernelLib.weft_dequant_nf4_ref(codes, absmax, out, n, bf16 ? 1 : 0), "nf4 dequant (n=" + n + ")");
  }

  @Override
  public void dequantInt8(long q, long scale, long out, long rows, long cols, boolean bf16) {
    check(KernelLib.weft_dequant_int8_ref(q, scale, out, rows, cols, bf16 ? 1 : 0), "int8 dequant (" + rows + "x" + cols + ")");
  }

  @Override
  public void pack(long[] tensors, long[] sizes, int elemSize, long bucket) {
    TensorLists.requireSameLength(tensors, sizes);
    check(KernelLib.weft_bucket_pack_ref(tensors, sizes, tensors.length, elemSize, bucket), "bucket pack");
  }

  @Override
  public void unpack(long[] tensors, long[] sizes, int elemSize, long bucket) {
    TensorLists.requireSameLength(tensors, sizes);
    check(KernelLib.weft_bucket_unpack_ref(tensors, sizes, tensors.length, elemSize, bucket), "bucket unpack");
  }

  private static void check(int rc, String what) {
    if (rc != 0) {
      throw new IllegalArgumentException(what + ": invalid arguments (negative size, element size not 1/2/4/8, "
          + "or step < 1)");
    }
  }
}
