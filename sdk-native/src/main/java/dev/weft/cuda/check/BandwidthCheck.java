package dev.weft.cuda.check;

import dev.weft.cuda.CudaEvent;
import dev.weft.cuda.CudaStream;
import dev.weft.cuda.DeviceBuffer;
import dev.weft.cuda.jni.KernelLib;
import dev.weft.cuda.CudaRuntime;
import dev.weft.cuda.kernels.AdamWConfig;
import dev.weft.cuda.kernels.FusedAdamW;
import java.time.Duration;
import java.util.function.LongConsumer;

/**
 * The fused AdamW step's memory bandwidth against a device-to-device copy that moves the same number of bytes
 * (a copy of B bytes reads B and writes B, so it copies half the step's traffic).
 */
public final class BandwidthCheck {
  /** Below this fraction of copy bandwidth the step is reported as FAIL: it would not be memory bound. */
  static final double MIN_RATIO = 0.6;
  private static final int WARMUP = 3;
  private static final int ITERATIONS = 20;
  private static final Duration WAIT = Duration.ofSeconds(120);

  private final CudaStream stream;

  public BandwidthCheck(CudaStream stream) { this.stream = stream; }

  public CheckResult run(long n) {
    long traffic = FusedAdamW.bytesMoved(n, true);
    long copyBytes = traffic / 2;
    FusedAdamW adam = FusedAdamW.onDevice(AdamWConfig.adamW(1e-4f, 0.01f), stream);
    try (DeviceBuffer p = zeroed(4 * n); DeviceBuffer g = zeroed(4 * n); DeviceBuffer m = zeroed(4 * n);
         DeviceBuffer v = zeroed(4 * n); DeviceBuffer bf = zeroed(2 * n);
         DeviceBuffer src = zeroed(copyBytes); DeviceBuffer dst = zeroed(copyBytes)) {
      double stepMs = time(step -> adam.step(step, p.address(), g.address(), m.address(), v.address(), bf.address(), n));
      double copyMs = time(i -> CudaRuntime.check(KernelLib.weft_cuda_memcpy_async(dst.address(), src.address(),
          copyBytes, stream.handle()), "cudaMemcpyAsync device to device"));
      double stepGbs = traffic / stepMs / 1e6, copyGbs = traffic / copyMs / 1e6;
      double ratio = copyMs / stepMs;
      return CheckResult.of("fused adamw bandwidth n=" + n, ratio >= MIN_RATIO, String.format(
          "step %.3f ms = %.0f GB/s; d2d copy of %d MB %.3f ms = %.0f GB/s; step/copy bandwidth %.2f (pass >= %.2f)",
          stepMs, stepGbs, copyBytes >> 20, copyMs, copyGbs, ratio, MIN_RATIO));
    }
  }

  private DeviceBuffer zeroed(long bytes) {
    DeviceBuffer b = DeviceBuffer.allocate(bytes);
    CudaRuntime.check(KernelLib.weft_cuda_memset_async(b.address(), 0, bytes, stream.handle()), "cudaMemsetAsync");
    return b;
  }

  /** Mean milliseconds per call of {@code work} (given the 1-based iteration) after a warm-up. */
  private double time(LongConsumer work) {
    for (int i = 1; i <= WARMUP; i++) work.accept(i);
    try (CudaEvent start = CudaEvent.create(); CudaEvent end = CudaEvent.create()) {
      start.record(stream);
      for (int i = 1; i <= ITERATIONS; i++) work.accept(WARMUP + i);
      end.record(stream);
      end.await(WAIT, "bandwidth measurement");
      return CudaEvent.elapsedMs(start, end) / ITERATIONS;
    }
  }
}
