package dev.weft.cuda;

import java.util.ArrayList;
import java.util.List;

/** The CUDA section of {@code weft doctor}: one line per fact, with the exact reason for anything missing. */
public final class CudaDoctor {
  private CudaDoctor() {}

  public static List<String> report() {
    CudaStatus s = CudaStatus.current();
    List<String> out = new ArrayList<>();
    out.add("CUDA driver:     " + (s.driverPresent()
        ? "present, CUDA " + CudaRuntime.versionString(s.driverVersion()) + " (" + s.driverLibrary() + ")"
        : "not present (" + s.driverMissing() + ")"));
    out.add("CUDA runtime:    " + (s.kernels().ok()
        ? CudaRuntime.versionString(s.runtimeVersion()) + " (linked statically into libweftkernels.so)" : "unknown"));
    if (s.devices().isEmpty()) {
      out.add("CUDA devices:    none (" + s.devicesError() + ")");
    } else {
      s.devices().forEach(d -> out.add("CUDA device:     " + d));
    }
    out.add("NCCL:            " + (s.nccl().loaded() ? s.nccl().describe() : "not available (" + s.nccl().error() + ")"));
    out.add("libtorch CUDA:   " + (s.torch().usable() ? "" : "not available: ") + s.torch().detail());
    out.add("Weft kernels:    " + describe(s.kernels()));
    out.add("Weft NCCL shim:  " + describe(s.ncclShim()));
    out.add("device: cuda     " + (s.available() ? "usable" : "not usable here: " + s.missing()));
    return out;
  }

  /**
   * The detail of {@link dev.weft.comm.Backend#probe()}: first the verdict (or what is missing), then the report,
   * one fact per line ({@code weft doctor} prints each line).
   */
  public static String summary() {
    CudaStatus s = CudaStatus.current();
    String verdict = s.available() ? "CUDA with NCCL on " + s.devices().size() + " device(s)" : s.missing();
    return verdict + "\n" + String.join("\n", report());
  }

  private static String describe(NativeLibraries.Load l) {
    return l.ok() ? l.path() : "did not load: " + l.error();
  }

  public static void main(String[] args) {
    report().forEach(System.out::println);
  }
}
