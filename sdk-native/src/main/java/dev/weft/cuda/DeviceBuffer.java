package dev.weft.cuda;

import dev.weft.cuda.jni.KernelLib;

/** Device memory from cudaMalloc, owned by this object: {@link #close()} frees it. */
public final class DeviceBuffer extends OwnedHandle {
  private final long bytes;

  private DeviceBuffer(long address, long bytes) {
    super("device buffer of " + bytes + " bytes", address);
    this.bytes = bytes;
  }

  public static DeviceBuffer allocate(long bytes) {
    String call = "cudaMalloc(" + bytes + " bytes)";
    try {
      return new DeviceBuffer(create(a -> KernelLib.weft_cuda_malloc(a, bytes), call), bytes);
    } catch (CudaException e) {
      throw e.code() == 2 ? new CudaException(e.getMessage() + "; free device memory or use smaller buffers", 2) : e;
    }
  }

  public long address() { return handle(); }

  public long bytes() { return bytes; }

  /** Copies {@code n} bytes from any address (host or device) into this buffer; synchronous. */
  public void copyFrom(long src, long n) {
    checkSize(n);
    CudaRuntime.check(KernelLib.weft_cuda_memcpy(address(), src, n), "cudaMemcpy to device");
  }

  /** Copies the first {@code n} bytes of this buffer to any address; synchronous. */
  public void copyTo(long dst, long n) {
    checkSize(n);
    CudaRuntime.check(KernelLib.weft_cuda_memcpy(dst, address(), n), "cudaMemcpy from device");
  }

  private void checkSize(long n) {
    if (n < 0 || n > bytes) throw new IllegalArgumentException(n + " bytes do not fit a device buffer of " + bytes);
  }

  @Override
  int release(long h) { return KernelLib.weft_cuda_free(h); }
}
