package dev.weft.cuda;

import dev.weft.cuda.jni.KernelLib;
import dev.weft.cuda.jni.NcclLib;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.javacpp.Loader;

/**
 * Loads Weft's native libraries once: the kernel library ({@code libweftkernels.so}, static cudart) and the
 * NCCL shim ({@code libweftnccl.so}), each with its JavaCPP JNI glue. Both come out of the sdk-native jar
 * into JavaCPP's cache. Neither needs a GPU, a driver or NCCL to load; a failure is kept and reported.
 */
public final class NativeLibraries {
  /** What happened when one library was loaded: its path in the cache, or why it failed. */
  public record Load(String name, boolean ok, String path, String error) {}

  private static volatile Load kernels;
  private static volatile Load nccl;

  private NativeLibraries() {}

  public static Load kernels() {
    if (kernels == null) kernels = load("weftkernels", KernelLib.class);
    return kernels;
  }

  public static Load ncclShim() {
    if (nccl == null) nccl = load("weftnccl", NcclLib.class);
    return nccl;
  }

  /** Throws a {@link CudaException} saying why when the kernel library is not usable. */
  public static void requireKernels() { require(kernels()); }

  public static void requireNcclShim() { require(ncclShim()); }

  private static void require(Load l) {
    if (!l.ok()) {
      throw new CudaException("Weft's native library " + l.name() + " did not load: " + l.error()
          + " (is the weft-sdk-native jar for linux-x86_64 on the classpath, and is the JavaCPP cache writable? "
          + "set -Dorg.bytedeco.javacpp.cachedir=<dir> to move it)", -1);
    }
  }

  /** Every library JavaCPP has loaded so far, by name, with its path. */
  public static Map<String, String> loadedPaths() {
    return new LinkedHashMap<>(Loader.getLoadedLibraries());
  }

  private static synchronized Load load(String name, Class<?> binding) {
    try {
      String jni = Loader.load(binding);
      String lib = Loader.getLoadedLibraries().entrySet().stream()
          .filter(e -> e.getKey().contains(name) && !e.getKey().contains("jni"))
          .map(Map.Entry::getValue).findFirst().orElse("(linked through " + jni + ")");
      return new Load(name, true, lib + " (JNI glue " + jni + ")", null);
    } catch (Throwable t) {
      return new Load(name, false, null, t.toString());
    }
  }
}
