package dev.weft.cuda;

import java.util.function.ToIntFunction;

/**
 * One native CUDA handle (device memory, stream, event) owned by a Java object: {@link #close()} releases it once,
 * and using it afterwards is an error that names it.
 */
abstract class OwnedHandle implements AutoCloseable {
  private final String what;
  private long handle;

  OwnedHandle(String what, long handle) {
    this.what = what;
    this.handle = handle;
  }

  /** Runs a CUDA create call that writes one handle into {@code out[0]}; throws naming {@code call} on failure. */
  static long create(ToIntFunction<long[]> createCall, String call) {
    NativeLibraries.requireKernels();
    long[] out = new long[1];
    CudaRuntime.check(createCall.applyAsInt(out), call);
    return out[0];
  }

  long handle() {
    if (handle == 0) throw new IllegalStateException(what + " is already released");
    return handle;
  }

  /** The CUDA call that frees {@code h}, returning its cudaError_t. */
  abstract int release(long h);

  @Override
  public void close() {
    if (handle != 0) {
      long h = handle;
      handle = 0;
      CudaRuntime.check(release(h), "releasing " + what);
    }
  }
}
