package dev.weft.cuda;

import dev.weft.cuda.jni.KernelLib;

/** Device memory from cudaMalloc, owned by this object: {@link #close()} frees it. */
public final class DeviceBuffer implements AutoCloseable {
  private final long bytes;
  private long address;

  private DeviceBuffer(long address, long bytes) {
    this.address = address;
    this.bytes = bytes;
  }

  public static DeviceBuffer allocate(long bytes) {
    NativeLibraries.requireKernels();
    long[] a = new long[1];
    int rc = KernelLib.weft_cuda_malloc(a, bytes);
    if (rc != 0) {
      throw new CudaException("cudaMalloc(" + bytes + " bytes) failed: " + CudaRuntime.describe(rc)
          + (rc == 2 ? "; free device memory or use smaller buffers" : ""), rc);
    }
    return new DeviceBuffer(a[0], bytes);
  }

  public long address() {
    if (address == 0) throw new IllegalStateException("device buffer of " + bytes + " bytes is already freed");
    return address;
  }

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
  public void close() {
    if (address != 0) {
      int rc = KernelLib.weft_cuda_free(address);
      address = 0;
      CudaRuntime.check(rc, "cudaFree");
    }
  }
}
