package dev.weft.precision;

import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.DeviceType;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * libtorch CPU autocast for one forward pass: matmuls in bf16/fp16, reductions and the loss in
 * fp32, parameters stay fp32 (they are the master weights). Autocast state is per thread, so rank
 * threads do not disturb each other. Use with try-with-resources.
 */
public final class Autocast implements AutoCloseable {
  private final boolean on;

  private Autocast(boolean on) { this.on = on; }

  public static Autocast of(String dtype) {
    if ("fp32".equals(dtype)) return new Autocast(false);
    torch.set_autocast_enabled(DeviceType.CPU, true);
    torch.set_autocast_dtype(DeviceType.CPU, "fp16".equals(dtype) ? ScalarType.Half : ScalarType.BFloat16);
    torch.increment_nesting();
    return new Autocast(true);
  }

  @Override
  public void close() {
    if (!on) return;
    if (torch.decrement_nesting() == 0) torch.clear_cache();
    torch.set_autocast_enabled(DeviceType.CPU, false);
  }
}
