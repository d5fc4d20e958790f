package dev.weft.cuda;

import dev.weft.comm.RankDevice;
import dev.weft.metrics.DeviceMemory;
import java.lang.reflect.Method;
import java.util.Optional;
import org.bytedeco.pytorch.Stat;

/**
 * libtorch's CUDA caching allocator figures for one device ({@code c10::cuda::CUDACachingAllocator} device stats:
 * the aggregate entries of {@code allocated_bytes} and {@code reserved_bytes}). The allocator is reached by
 * reflection: its Java class names CUDA runtime types from {@code org.bytedeco:cuda}, which the CPU build does not
 * carry, and its natives exist only in libtorch's CUDA build; anywhere else this answers empty, never fails.
 */
public final class CudaMemory {
  private static volatile Method getAllocator;

  private CudaMemory() {}

  public static Optional<DeviceMemory> of(RankDevice device) {
    if (!device.cuda() || !TorchCuda.status().usable()) return Optional.empty();
    try {
      Object allocator = allocatorMethod().invoke(null);
      Object stats = allocator.getClass().getMethod("getDeviceStats", byte.class).invoke(allocator, (byte) device.index());
      Stat allocated = (Stat) stats.getClass().getMethod("allocated_bytes").invoke(stats);
      Stat reserved = (Stat) stats.getClass().getMethod("reserved_bytes").invoke(stats);
      return Optional.of(new DeviceMemory(device.toString(), allocated.current(), reserved.current(), allocated.peak()));
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * Starts {@code device}'s peak over from what is allocated now (the allocator's peak is per process: a run measured
   * after a bigger one would otherwise report the bigger one's). A no-op where {@link #of} answers empty.
   */
  public static void resetPeak(RankDevice device) {
    if (!device.cuda() || !TorchCuda.status().usable()) return;
    try {
      Object allocator = allocatorMethod().invoke(null);
      allocator.getClass().getMethod("resetPeakStats", byte.class).invoke(allocator, (byte) device.index());
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      // the figures stay process-wide peaks; of() still answers
    }
  }

  private static Method allocatorMethod() throws ReflectiveOperationException {
    if (getAllocator == null) getAllocator = Class.forName("org.bytedeco.pytorch.global.torch_cuda").getMethod("getAllocator");
    return getAllocator;
  }
}
