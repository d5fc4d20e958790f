package dev.weft.precision;

import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.DeviceType;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * libtorch autocast for one forward pass, on the rank's device type (CPU or CUDA): matmuls in bf16/fp16, reductions
 * and the loss in fp32, parameters stay fp32 (they are the master weights). Autocast state is per thread, so rank
 * threads do not disturb each other. Use with try-with-resources.
 */
public final class Autocast implements AutoCloseable {
  private final DeviceType device;

  private Autocast(DeviceType device) { this.device = device; }

  /** CPU autocast. */
  public static Autocast of(String dtype) { return of(dtype, false); }

  /** Autocast for CUDA tensors when {@code cuda}, else for CPU tensors. */
  public static Autocast of(String dtype, boolean cuda) {
    if ("fp32".equals(dtype)) return new Autocast(null);
    DeviceType type = cuda ? DeviceType.CUDA : DeviceType.CPU;
    torch.set_autocast_enabled(type, true);
    torch.set_autocast_dtype(type, "fp16".equals(dtype) ? ScalarType.Half : ScalarType.BFloat16);
    torch.increment_nesting();
    return new Autocast(type);
  }

  /** The device type this autocast is on for, or null when it is off (fp32). */
  public DeviceType deviceType() { return device; }

  @Override
  public void close() {
    if (device == null) return;
    if (torch.decrement_nesting() == 0) torch.clear_cache();
    torch.set_autocast_enabled(device, false);
  }
}
