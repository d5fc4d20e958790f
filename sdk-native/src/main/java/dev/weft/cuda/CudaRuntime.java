package dev.weft.cuda;

import dev.weft.cuda.jni.KernelLib;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The CUDA runtime as Weft sees it (through the statically linked cudart in the kernel library). */
public final class CudaRuntime {
  private CudaRuntime() {}

  /** Throws when {@code rc} is not cudaSuccess; {@code what} names the call for the message. */
  public static void check(int rc, String what) {
    if (rc != 0) throw new CudaException(what + " failed: " + describe(rc), rc);
  }

  /** {@code cudaErrorName (code): description}. */
  public static String describe(int rc) {
    NativeLibraries.requireKernels();
    return KernelLib.weft_cuda_error_name(rc) + " (" + rc + "): " + KernelLib.weft_cuda_error_string(rc);
  }

  /** The driver's CUDA version as 13000 for 13.0, or 0 when no driver is installed. */
  public static int driverVersion() {
    NativeLibraries.requireKernels();
    int[] v = new int[1];
    check(KernelLib.weft_cuda_driver_version(v), "cudaDriverGetVersion");
    return v[0];
  }

  /** The version of the CUDA runtime built into Weft's kernel library. */
  public static int runtimeVersion() {
    NativeLibraries.requireKernels();
    int[] v = new int[1];
    check(KernelLib.weft_cuda_runtime_version(v), "cudaRuntimeGetVersion");
    return v[0];
  }

  /** Path of libcuda.so.1 when it loads, or empty with the loader's reason in {@code reason[0]}. */
  public static java.util.Optional<String> driverLibrary(String[] reason) {
    NativeLibraries.requireKernels();
    byte[] out = new byte[4096];
    boolean found = KernelLib.weft_cuda_driver_library(out, out.length) == 1;
    String text = cString(out);
    if (found) return java.util.Optional.of(text);
    reason[0] = text;
    return java.util.Optional.empty();
  }

  public static int deviceCount() {
    NativeLibraries.requireKernels();
    int[] n = new int[1];
    check(KernelLib.weft_cuda_device_count(n), "cudaGetDeviceCount");
    return n[0];
  }

  public static List<CudaDevice> devices() {
    int n = deviceCount();
    List<CudaDevice> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(device(i));
    return out;
  }

  public static CudaDevice device(int index) {
    NativeLibraries.requireKernels();
    byte[] name = new byte[256];
    int[] major = new int[1], minor = new int[1], sms = new int[1];
    long[] bytes = new long[1];
    check(KernelLib.weft_cuda_device_info(index, name, name.length, major, minor, bytes, sms),
        "cudaGetDeviceProperties(" + index + ")");
    return new CudaDevice(index, cString(name), major[0], minor[0], bytes[0], sms[0]);
  }

  public static void setDevice(int index) {
    NativeLibraries.requireKernels();
    check(KernelLib.weft_cuda_set_device(index), "cudaSetDevice(" + index + ")");
  }

  /** 13000 becomes "13.0", 12040 "12.4". */
  public static String versionString(int v) {
    return (v / 1000) + "." + (v % 1000) / 10;
  }

  static String cString(byte[] b) {
    int n = 0;
    while (n < b.length && b[n] != 0) n++;
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }
}
