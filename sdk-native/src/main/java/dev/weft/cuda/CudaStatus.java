package dev.weft.cuda;

import dev.weft.cuda.nccl.Nccl;
import java.util.List;

/**
 * Everything Weft found out about CUDA on this machine, probed once: Weft's own libraries, the driver,
 * the runtime, the devices, NCCL and libtorch's CUDA build. Never throws.
 */
public record CudaStatus(
    NativeLibraries.Load kernels,
    NativeLibraries.Load ncclShim,
    String driverLibrary,
    String driverMissing,
    int driverVersion,
    int runtimeVersion,
    List<CudaDevice> devices,
    String devicesError,
    Nccl.Status nccl,
    TorchCuda.Status torch) {

  private static volatile CudaStatus current;

  public static CudaStatus current() {
    if (current == null) current = probe();
    return current;
  }

  public boolean driverPresent() { return driverLibrary != null; }

  /** What {@code device: cuda} needs: a device, NCCL, and libtorch's CUDA build. */
  public boolean available() { return !devices.isEmpty() && nccl.loaded() && torch.usable(); }

  /** Every missing piece, each a sentence a person can act on, joined by "; "; empty when available. */
  public String missing() { return String.join("; ", missingPieces()); }

  /** The doctor's reasons, one per missing piece: the device (or driver), NCCL, libtorch's CUDA build. */
  public List<String> missingPieces() {
    if (!kernels.ok()) return List.of("Weft's kernel library did not load: " + kernels.error());
    List<String> out = new java.util.ArrayList<>();
    if (!driverPresent()) out.add("no CUDA driver (" + driverMissing + "); this machine has no NVIDIA GPU driver installed");
    else if (devices.isEmpty()) out.add("no CUDA device: " + devicesError);
    if (!nccl.loaded()) out.add("NCCL: " + nccl.error());
    if (!torch.usable()) out.add("libtorch CUDA: " + torch.detail());
    return List.copyOf(out);
  }

  static CudaStatus probe() {
    NativeLibraries.Load kernels = NativeLibraries.kernels();
    NativeLibraries.Load shim = NativeLibraries.ncclShim();
    Nccl.Status nccl = Nccl.status();
    TorchCuda.Status torch = TorchCuda.status();
    if (!kernels.ok()) {
      return new CudaStatus(kernels, shim, null, "not probed: Weft's kernel library did not load", 0, 0, List.of(),
          "not probed", nccl, torch);
    }
    String[] reason = new String[1];
    String driver = CudaRuntime.driverLibrary(reason).orElse(null);
    int driverVersion = driver == null ? 0 : safeDriverVersion();
    int runtimeVersion = CudaRuntime.runtimeVersion();
    List<CudaDevice> devices = List.of();
    String devicesError = null;
    try {
      devices = CudaRuntime.devices();
      if (devices.isEmpty()) devicesError = "the driver reports 0 devices";
    } catch (CudaException e) {
      devicesError = e.getMessage();
    }
    return new CudaStatus(kernels, shim, driver, reason[0], driverVersion, runtimeVersion, devices, devicesError, nccl, torch);
  }

  private static int safeDriverVersion() {
    try {
      return CudaRuntime.driverVersion();
    } catch (CudaException e) {
      return 0;
    }
  }
}
