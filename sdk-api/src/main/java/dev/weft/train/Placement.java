package dev.weft.train;

import dev.weft.comm.RankDevice;
import dev.weft.models.Parameters.Param;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;

/**
 * Puts a rank's model on its device and checks that it stayed there. Models are built on the CPU with the run's seed
 * (so a CUDA run starts from exactly the weights a CPU run does) and moved once, before the optimizer builds its flat
 * buffers: the buffers, gradients, moments and gather buffers then take their device from the parameters.
 */
public final class Placement {
  private Placement() {}

  /** Moves every parameter to {@code device} in place (same tensor object: modules and hooks keep working). */
  public static void moveParameters(List<Param> params, RankDevice device) {
    if (device.cpu()) return;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : params) {
        Tensor t = p.tensor();
        if (!device.holds(t)) t.set_data(device.place(t.detach()));
      }
    }
  }

  /**
   * Every tensor of {@code named} (and each one's gradient, where defined) that is not on {@code device}, as
   * {@code "name on cpu"}; empty when all are there. A CUDA run that left one behind would copy it every step or fail.
   */
  public static List<String> misplaced(Map<String, Tensor> named, RankDevice device) {
    List<String> out = new ArrayList<>();
    named.forEach((name, t) -> {
      if (t == null || !t.defined()) return;
      if (!device.holds(t)) out.add(name + " on " + t.device().str().getString());
      Tensor g = t.grad();
      if (g.defined() && !device.holds(g)) out.add(name + ".grad on " + g.device().str().getString());
    });
    return out;
  }
}
