package dev.weft.cuda.kernels;

import dev.weft.cuda.CudaRuntime;
import dev.weft.cuda.CudaStream;
import dev.weft.cuda.jni.KernelLib;

/** The CUDA kernels, over device addresses; each call only enqueues work on {@code stream}. */
public final class DeviceKernels implements Kernels {
  private final CudaStream stream;

  public DeviceKernels(CudaStream stream) { this.stream = stream; }

  @Override public String name() { return "device"; }

  @Override
  public void adamStep(AdamWConfig c, long step, long param, long grad, long expAvg, long expAvgSq, long bf16Out, long n) {
    CudaRuntime.check(KernelLib.weft_adam_step(param, grad, expAvg, expAvgSq, bf16Out, n, c.lr(), c.beta1(), c.beta2(),
        c.eps(), c.weightDecay(), c.decoupled() ? 1 : 0, step, stream.handle()), "adam step kernel (n=" + n + ")");
  }

  @Override
  public void unscaleCheck(long[] tensors, long[] sizes, float invScale, long foundInf) {
    TensorLists.requireSameLength(tensors, sizes);
    CudaRuntime.check(KernelLib.weft_unscale_check(tensors, sizes, tensors.length, invScale, foundInf, stream.handle()),
        "unscale kernel");
  }

  @Override
  public void cast(CastKind kind, long src, long dst, long n) {
    CudaRuntime.check(KernelLib.weft_cast(kind.code, src, dst, n, stream.handle()), "cast kernel " + kind);
  }

  @Override
  public void dequantNf4(long codes, long absmax, long out, long n, boolean bf16) {
    CudaRuntime.check(KernelLib.weft_dequant_nf4(codes, absmax, out, n, bf16 ? 1 : 0, stream.handle()), "nf4 dequant kernel");
  }

  @Override
  public void dequantInt8(long q, long scale, long out, long rows, long cols, boolean bf16) {
    CudaRuntime.check(KernelLib.weft_dequant_int8(q, scale, out, rows, cols, bf16 ? 1 : 0, stream.handle()),
        "int8 dequant kernel");
  }

  @Override
  public void pack(long[] tensors, long[] sizes, int elemSize, long bucket) {
    TensorLists.requireSameLength(tensors, sizes);
    CudaRuntime.check(KernelLib.weft_bucket_pack(tensors, sizes, tensors.length, elemSize, bucket, stream.handle()),
        "bucket pack kernel");
  }

  @Override
  public void unpack(long[] tensors, long[] sizes, int elemSize, long bucket) {
    TensorLists.requireSameLength(tensors, sizes);
    CudaRuntime.check(KernelLib.weft_bucket_unpack(tensors, sizes, tensors.length, elemSize, bucket, stream.handle()),
        "bucket unpack kernel");
  }
}
