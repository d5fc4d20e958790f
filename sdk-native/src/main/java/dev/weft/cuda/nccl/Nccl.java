package dev.weft.cuda.nccl;

import dev.weft.comm.CommException;
import dev.weft.cuda.NativeLibraries;
import dev.weft.cuda.jni.NcclLib;
import java.nio.charset.StandardCharsets;

/**
 * NCCL through Weft's shim. {@link #status()} loads {@code libnccl.so.2} (or the file named by
 * {@code WEFT_NCCL_LIBRARY} / {@code -Dweft.nccl.library}) once and remembers the outcome.
 */
public final class Nccl {
  public static final String DEFAULT_LIBRARY = "libnccl.so.2";

  /** The outcome of loading NCCL: the library asked for, where it was found, its version or why it failed. */
  public record Status(boolean loaded, String requested, String path, String version, String error) {
    public String describe() {
      return loaded ? "NCCL " + version + " (" + path + ")" : "NCCL not available: " + error;
    }
  }

  private static volatile Status status;

  private Nccl() {}

  public static String requestedLibrary() {
    String p = System.getProperty("weft.nccl.library");
    if (p == null || p.isBlank()) p = System.getenv("WEFT_NCCL_LIBRARY");
    return p == null || p.isBlank() ? DEFAULT_LIBRARY : p;
  }

  public static Status status() {
    if (status == null) status = load(requestedLibrary());
    return status;
  }

  /** Loads {@code library} now (tests and the GPU check use it to name a file); the first success sticks. */
  public static synchronized Status load(String library) {
    NativeLibraries.Load shim = NativeLibraries.ncclShim();
    if (!shim.ok()) return new Status(false, library, null, null, "Weft's NCCL shim did not load: " + shim.error());
    byte[] err = new byte[2048];
    int rc = NcclLib.weft_nccl_load(library, err, err.length);
    if (rc != 0) {
      return new Status(false, library, null, null, cString(err) + " (install NCCL, e.g. pip install nvidia-nccl-cu13, "
          + "and put the folder holding libnccl.so.2 on LD_LIBRARY_PATH, or set WEFT_NCCL_LIBRARY to its full path)");
    }
    int[] v = new int[1];
    int vrc = NcclLib.weft_nccl_version(v);
    String version = vrc == 0 ? versionString(v[0]) : "unknown (" + NcclLib.weft_nccl_error_string(vrc) + ")";
    status = new Status(true, library, NcclLib.weft_nccl_library_path(), version, null);
    return status;
  }

  /** Throws a {@link CommException} naming what is missing when NCCL cannot be used. */
  public static void require(String forWhat) {
    Status s = status();
    if (!s.loaded()) throw new CommException(forWhat + " needs NCCL: " + s.error());
  }

  /** Throws a {@link CommException} for an ncclResult_t other than success. */
  public static void check(int rc, String what) {
    if (rc != 0) {
      throw new CommException(what + " failed: NCCL error " + rc + ": " + NcclLib.weft_nccl_error_string(rc));
    }
  }

  public static byte[] uniqueId() {
    require("ncclGetUniqueId");
    byte[] id = new byte[NcclLib.UNIQUE_ID_BYTES];
    check(NcclLib.weft_nccl_get_unique_id(id), "ncclGetUniqueId");
    return id;
  }

  /** 22703 becomes "2.27.3" (the encoding NCCL uses since 2.9). */
  static String versionString(int v) {
    return (v / 10000) + "." + (v % 10000) / 100 + "." + v % 100;
  }

  private static String cString(byte[] b) {
    int n = 0;
    while (n < b.length && b[n] != 0) n++;
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }
}
