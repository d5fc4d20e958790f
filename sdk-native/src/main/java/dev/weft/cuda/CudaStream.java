package dev.weft.cuda;

import dev.weft.cuda.jni.KernelLib;
import java.time.Duration;

/**
 * A CUDA stream owned by this object. {@link #create()} makes a blocking stream: work on it is ordered after earlier
 * work on the legacy default stream (where libtorch runs by default) and before later work there.
 * {@link #createNonBlocking()} makes one with no implicit order, for work that overlaps the default stream and is
 * ordered with it through events ({@link dev.weft.cuda.streams.CollectiveOrder}).
 */
public final class CudaStream extends OwnedHandle {
  private CudaStream(long handle) { super("CUDA stream", handle); }

  public static CudaStream create() {
    return new CudaStream(create(KernelLib::weft_cuda_stream_create, "cudaStreamCreate"));
  }

  public static CudaStream createNonBlocking() {
    return new CudaStream(create(KernelLib::weft_cuda_stream_create_nonblocking, "cudaStreamCreateWithFlags(NonBlocking)"));
  }

  /** Makes later work on the stream {@code streamHandle} wait for {@code event}; the host does not wait. */
  public static void waitFor(long streamHandle, CudaEvent event) {
    CudaRuntime.check(KernelLib.weft_cuda_stream_wait_event(streamHandle, event.handle()), "cudaStreamWaitEvent");
  }

  @Override
  public long handle() { return super.handle(); }

  /** Waits for every operation queued so far, at most {@code timeout}. */
  public void synchronize(Duration timeout, String what) {
    Deadline.poll(() -> KernelLib.weft_cuda_stream_query(handle()), timeout, what);
  }

  @Override
  int release(long h) { return KernelLib.weft_cuda_stream_destroy(h); }
}
