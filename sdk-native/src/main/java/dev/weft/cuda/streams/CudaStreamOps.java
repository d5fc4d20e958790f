package dev.weft.cuda.streams;

import dev.weft.cuda.CudaEvent;
import dev.weft.cuda.CudaStream;

/** {@link StreamOps} over CUDA: streams by handle (0 is the legacy default stream, libtorch's by default). */
public final class CudaStreamOps implements StreamOps<Long, CudaEvent> {
  /** libtorch queues its kernels on the legacy default stream unless told otherwise. */
  public static final long LIBTORCH_DEFAULT_STREAM = 0L;

  @Override public CudaEvent record(Long stream) { return CudaEvent.create().record(stream); }
  @Override public void waitFor(Long stream, CudaEvent event) { CudaStream.waitFor(stream, event); }
  @Override public boolean done(CudaEvent event) { return event.isDone(); }
  @Override public void release(CudaEvent event) { event.close(); }
}
