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
  private final boolean wasEnabled; // the thread's setting before, restored on close: an autocast may open inside another
  private final ScalarType wasDtype;

  private Autocast(DeviceType device, boolean wasEnabled, ScalarType wasDtype) {
    this.device = device;
    this.wasEnabled = wasEnabled;
    this.wasDtype = wasDtype;
  }

  /** CPU autocast. */
  public static Autocast of(String dtype) { return of(dtype, false); }

  /** Autocast for CUDA tensors when {@code cuda}, else for CPU tensors. */
  public static Autocast of(String dtype, boolean cuda) {
    if ("fp32".equals(dtype)) return new Autocast(null, false, null);
    DeviceType type = cuda ? DeviceType.CUDA : DeviceType.CPU;
    Autocast opened = new Autocast(type, torch.is_autocast_enabled(type), torch.get_autocast_dtype(type));
    torch.set_autocast_enabled(type, true);
    torch.set_autocast_dtype(type, "fp16".equals(dtype) ? ScalarType.Half : ScalarType.BFloat16);
    torch.increment_nesting();
    return opened;
  }

  /**
   * An autocast setting, to enter again later: a recomputation must run as its forward ran. {@code fp32} (off) enters
   * nothing: the thread's setting stays (Weft's loops run every backward outside autocast).
   */
  public record Mode(String dtype, boolean cuda) {
    public Autocast enter() { return Autocast.of(dtype, cuda); }
  }

  /** The autocast this thread runs under now. */
  public static Mode current() {
    for (DeviceType type : new DeviceType[] {DeviceType.CPU, DeviceType.CUDA}) {
      if (torch.is_autocast_enabled(type)) {
        return new Mode(torch.get_autocast_dtype(type) == ScalarType.Half ? "fp16" : "bf16", type == DeviceType.CUDA);
      }
    }
    return new Mode("fp32", false);
  }

  /** The device type this autocast is on for, or null when it is off (fp32). */
  public DeviceType deviceType() { return device; }

  @Override
  public void close() {
    if (device == null) return;
    if (torch.decrement_nesting() == 0) torch.clear_cache();
    torch.set_autocast_enabled(device, wasEnabled);
    torch.set_autocast_dtype(device, wasDtype);
  }
}
