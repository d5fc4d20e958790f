package dev.weft.cuda;

import dev.weft.cuda.jni.KernelLib;
import java.time.Duration;

/**
 * A CUDA stream owned by this object. It is a blocking stream: work on it is ordered after earlier work
 * on the legacy default stream (where libtorch runs by default) and before later work there.
 */
public final class CudaStream implements AutoCloseable {
  private long handle;

  private CudaStream(long handle) { this.handle = handle; }

  public static CudaStream create() {
    NativeLibraries.requireKernels();
    long[] s = new long[1];
    CudaRuntime.check(KernelLib.weft_cuda_stream_create(s), "cudaStreamCreate");
    return new CudaStream(s[0]);
  }

  public long handle() {
    if (handle == 0) throw new IllegalStateException("CUDA stream is already destroyed");
    return handle;
  }

  /** Waits for every operation queued so far, at most {@code timeout}. */
  public void synchronize(Duration timeout, String what) {
    Deadline.poll(() -> KernelLib.weft_cuda_stream_query(handle()), timeout, what);
  }

  @Override
  public void close() {
    if (handle != 0) {
      int rc = KernelLib.weft_cuda_stream_destroy(handle);
      handle = 0;
      CudaRuntime.check(rc, "cudaStreamDestroy");
    }
  }
}
