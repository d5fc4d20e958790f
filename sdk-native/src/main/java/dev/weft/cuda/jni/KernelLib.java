package dev.weft.cuda.jni;

import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Cast;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * JavaCPP binding of {@code native/cpp/include/weft_kernels.h} (library {@code libweftkernels.so}).
 * Raw: every function returns a cudaError_t. Use {@link dev.weft.cuda.CudaRuntime} and
 * {@link dev.weft.cuda.kernels.Kernels} instead; load through {@link dev.weft.cuda.NativeLibraries}.
 */
@Platform(include = "weft_kernels.h", link = "weftkernels")
public final class KernelLib {
  static { Loader.load(); }

  private KernelLib() {}

  public static final int F32_TO_BF16 = 0, BF16_TO_F32 = 1, F32_TO_F16 = 2, F16_TO_F32 = 3;
  /** cudaErrorNotReady: a stream or event query whose work is still running. */
  public static final int NOT_READY = 600;

  public static native int weft_cuda_driver_version(int[] version);
  public static native int weft_cuda_driver_library(@Cast("char*") byte[] out, int outLen);
  public static native int weft_cuda_runtime_version(int[] version);
  public static native int weft_cuda_device_count(int[] count);
  public static native int weft_cuda_device_info(int device, @Cast("char*") byte[] name, int nameLen, int[] major,
      int[] minor, @Cast("uint64_t*") long[] totalBytes, int[] smCount);
  public static native String weft_cuda_error_string(int error);
  public static native String weft_cuda_error_name(int error);
  public static native int weft_cuda_set_device(int device);
  public static native int weft_cuda_malloc(@Cast("uint64_t*") long[] address, @Cast("uint64_t") long bytes);
  public static native int weft_cuda_free(@Cast("uint64_t") long address);
  public static native int weft_cuda_memcpy(@Cast("uint64_t") long dst, @Cast("uint64_t") long src, @Cast("uint64_t") long bytes);
  public static native int weft_cuda_memcpy_async(@Cast("uint64_t") long dst, @Cast("uint64_t") long src,
      @Cast("uint64_t") long bytes, @Cast("uint64_t") long stream);
  public static native int weft_cuda_memset_async(@Cast("uint64_t") long dst, int value, @Cast("uint64_t") long bytes,
      @Cast("uint64_t") long stream);
  public static native int weft_cuda_stream_create(@Cast("uint64_t*") long[] stream);
  public static native int weft_cuda_stream_create_nonblocking(@Cast("uint64_t*") long[] stream);
  public static native int weft_cuda_stream_wait_event(@Cast("uint64_t") long stream, @Cast("uint64_t") long event);
  public static native int weft_cuda_stream_destroy(@Cast("uint64_t") long stream);
  public static native int weft_cuda_stream_query(@Cast("uint64_t") long stream);
  public static native int weft_cuda_stream_synchronize(@Cast("uint64_t") long stream);
  public static native int weft_cuda_event_create(@Cast("uint64_t*") long[] event);
  public static native int weft_cuda_event_destroy(@Cast("uint64_t") long event);
  public static native int weft_cuda_event_record(@Cast("uint64_t") long event, @Cast("uint64_t") long stream);
  public static native int weft_cuda_event_query(@Cast("uint64_t") long event);
  public static native int weft_cuda_event_elapsed_ms(float[] ms, @Cast("uint64_t") long start, @Cast("uint64_t") long end);
  public static native int weft_cuda_get_last_error();

  public static native int weft_adam_step(@Cast("uint64_t") long param, @Cast("uint64_t") long grad,
      @Cast("uint64_t") long expAvg, @Cast("uint64_t") long expAvgSq, @Cast("uint64_t") long bf16Out,
      @Cast("int64_t") long n, float lr, float beta1, float beta2, float eps, float weightDecay, int decoupled,
      @Cast("int64_t") long step, @Cast("uint64_t") long stream);
  public static native int weft_adam_step_ref(@Cast("uint64_t") long param, @Cast("uint64_t") long grad,
      @Cast("uint64_t") long expAvg, @Cast("uint64_t") long expAvgSq, @Cast("uint64_t") long bf16Out,
      @Cast("int64_t") long n, float lr, float beta1, float beta2, float eps, float weightDecay, int decoupled,
      @Cast("int64_t") long step);

  public static native int weft_unscale_check(@Cast("const uint64_t*") long[] tensors, @Cast("const int64_t*") long[] sizes,
      int count, float invScale, @Cast("uint64_t") long foundInf, @Cast("uint64_t") long stream);
  public static native int weft_unscale_check_ref(@Cast("const uint64_t*") long[] tensors,
      @Cast("const int64_t*") long[] sizes, int count, float invScale, @Cast("uint64_t") long foundInf);

  public static native int weft_cast(int kind, @Cast("uint64_t") long src, @Cast("uint64_t") long dst,
      @Cast("int64_t") long n, @Cast("uint64_t") long stream);
  public static native int weft_cast_ref(int kind, @Cast("uint64_t") long src, @Cast("uint64_t") long dst,
      @Cast("int64_t") long n);

  public static native int weft_bucket_pack(@Cast("const uint64_t*") long[] tensors, @Cast("const int64_t*") long[] sizes,
      int count, int elemSize, @Cast("uint64_t") long bucket, @Cast("uint64_t") long stream);
  public static native int weft_bucket_unpack(@Cast("const uint64_t*") long[] tensors, @Cast("const int64_t*") long[] sizes,
      int count, int elemSize, @Cast("uint64_t") long bucket, @Cast("uint64_t") long stream);
  public static native int weft_bucket_pack_ref(@Cast("const uint64_t*") long[] tensors,
      @Cast("const int64_t*") long[] sizes, int count, int elemSize, @Cast("uint64_t") long bucket);
  public static native int weft_bucket_unpack_ref(@Cast("const uint64_t*") long[] tensors,
      @Cast("const int64_t*") long[] sizes, int count, int elemSize, @Cast("uint64_t") long bucket);

  public static native int weft_dequant_nf4(@Cast("uint64_t") long codes, @Cast("uint64_t") long absmax,
      @Cast("uint64_t") long out, @Cast("int64_t") long n, int outBf16, @Cast("uint64_t") long stream);
  public static native int weft_dequant_nf4_ref(@Cast("uint64_t") long codes, @Cast("uint64_t") long absmax,
      @Cast("uint64_t") long out, @Cast("int64_t") long n, int outBf16);
  public static native int weft_dequant_int8(@Cast("uint64_t") long q, @Cast("uint64_t") long scale,
      @Cast("uint64_t") long out, @Cast("int64_t") long rows, @Cast("int64_t") long cols, int outBf16,
      @Cast("uint64_t") long stream);
  public static native int weft_dequant_int8_ref(@Cast("uint64_t") long q, @Cast("uint64_t") long scale,
      @Cast("uint64_t") long out, @Cast("int64_t") long rows, @Cast("int64_t") long cols, int outBf16);
}
