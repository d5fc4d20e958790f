package dev.weft.cuda;

import dev.weft.cuda.jni.KernelLib;
import java.time.Duration;

/** A CUDA event owned by this object: marks a point in a stream, for waiting and timing. */
public final class CudaEvent extends OwnedHandle {
  private CudaEvent(long handle) { super("CUDA event", handle); }

  public static CudaEvent create() {
    return new CudaEvent(create(KernelLib::weft_cuda_event_create, "cudaEventCreate"));
  }

  public CudaEvent record(CudaStream stream) { return record(stream.handle()); }

  /** Records on a stream by handle (0: the legacy default stream, where libtorch queues its work by default). */
  public CudaEvent record(long streamHandle) {
    CudaRuntime.check(KernelLib.weft_cuda_event_record(handle(), streamHandle), "cudaEventRecord");
    return this;
  }

  public boolean isDone() {
    int rc = KernelLib.weft_cuda_event_query(handle());
    if (rc == KernelLib.NOT_READY) return false;
    CudaRuntime.check(rc, "cudaEventQuery");
    return true;
  }

  /** Waits until the recorded point is reached, at most {@code timeout}. */
  public void await(Duration timeout, String what) {
    Deadline.poll(() -> KernelLib.weft_cuda_event_query(handle()), timeout, what);
  }

  /** Milliseconds between two recorded events (both complete). */
  public static float elapsedMs(CudaEvent start, CudaEvent end) {
    float[] ms = new float[1];
    CudaRuntime.check(KernelLib.weft_cuda_event_elapsed_ms(ms, start.handle(), end.handle()), "cudaEventElapsedTime");
    return ms[0];
  }

  @Override
  int release(long h) { return KernelLib.weft_cuda_event_destroy(h); }
}
