package dev.weft.cuda.jni;

import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Cast;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * JavaCPP binding of {@code native/cpp/include/weft_nccl.h} (library {@code libweftnccl.so}), the shim that
 * dlopens {@code libnccl.so.2}. Raw ncclResult_t codes; use {@link dev.weft.cuda.nccl.Nccl} instead.
 */
@Platform(include = "weft_nccl.h", link = "weftnccl")
public final class NcclLib {
  static { Loader.load(); }

  private NcclLib() {}

  public static final int UNIQUE_ID_BYTES = 128;
  public static final int NOT_LOADED = 1000;

  public static native int weft_nccl_load(String library, @Cast("char*") byte[] error, int errorLen);
  public static native int weft_nccl_loaded();
  public static native String weft_nccl_symbols();
  public static native String weft_nccl_library_path();
  public static native int weft_nccl_version(int[] version);
  public static native String weft_nccl_error_string(int result);
  public static native String weft_nccl_last_error(@Cast("uint64_t") long comm);

  public static native int weft_nccl_get_unique_id(@Cast("signed char*") byte[] id);
  public static native int weft_nccl_comm_init_rank(@Cast("uint64_t*") long[] comm, int nranks,
      @Cast("const signed char*") byte[] id, int rank);
  public static native int weft_nccl_comm_destroy(@Cast("uint64_t") long comm);
  public static native int weft_nccl_comm_abort(@Cast("uint64_t") long comm);
  public static native int weft_nccl_comm_get_async_error(@Cast("uint64_t") long comm, int[] asyncError);

  public static native int weft_nccl_all_reduce(@Cast("uint64_t") long send, @Cast("uint64_t") long recv,
      @Cast("uint64_t") long count, int datatype, int op, @Cast("uint64_t") long comm, @Cast("uint64_t") long stream);
  public static native int weft_nccl_all_gather(@Cast("uint64_t") long send, @Cast("uint64_t") long recv,
      @Cast("uint64_t") long sendCount, int datatype, @Cast("uint64_t") long comm, @Cast("uint64_t") long stream);
  public static native int weft_nccl_reduce_scatter(@Cast("uint64_t") long send, @Cast("uint64_t") long recv,
      @Cast("uint64_t") long recvCount, int datatype, int op, @Cast("uint64_t") long comm, @Cast("uint64_t") long stream);
  public static native int weft_nccl_broadcast(@Cast("uint64_t") long send, @Cast("uint64_t") long recv,
      @Cast("uint64_t") long count, int datatype, int root, @Cast("uint64_t") long comm, @Cast("uint64_t") long stream);
  public static native int weft_nccl_send(@Cast("uint64_t") long buf, @Cast("uint64_t") long count, int datatype,
      int peer, @Cast("uint64_t") long comm, @Cast("uint64_t") long stream);
  public static native int weft_nccl_recv(@Cast("uint64_t") long buf, @Cast("uint64_t") long count, int datatype,
      int peer, @Cast("uint64_t") long comm, @Cast("uint64_t") long stream);
  public static native int weft_nccl_group_start();
  public static native int weft_nccl_group_end();
}
