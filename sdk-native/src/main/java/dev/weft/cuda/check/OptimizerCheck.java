package dev.weft.cuda.check;

import dev.weft.cuda.kernels.FusedShardStep;
import dev.weft.models.Init;
import dev.weft.optim.AdamArgs;
import dev.weft.optim.ShardStep;
import dev.weft.util.Tensors;
import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.AdamW;
import org.bytedeco.pytorch.AdamWOptions;
import org.bytedeco.pytorch.Device;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The sharded optimizer's two shard steps on one device against libtorch's own AdamW there: Weft's fused kernel
 * ({@link FusedShardStep}: the CUDA kernel for CUDA tensors) and the libtorch passes ({@link ShardStep#LIBTORCH}), over
 * the same flat shard and gradients, several steps. On a CPU device the fused step runs the kernel's C++ reference.
 */
public final class OptimizerCheck {
  /** max |a − b| / max(|b|, 1e-2) allowed after the steps: fp32 scalars in the kernel, doubles in libtorch. */
  static final double TOLERANCE = 2e-5;
  private static final double LR = 1e-2, WD = 0.1, BETA1 = 0.9, BETA2 = 0.999, EPS = 1e-8;

  private final Device device;
  private final String where;

  public OptimizerCheck(Device device, String where) {
    this.device = device;
    this.where = where;
  }

  public List<CheckResult> run(long n, int steps) {
    try (PointerScope scope = new PointerScope(); NoGradGuard ng = new NoGradGuard()) {
      Tensor start = on(Init.normalFull(7, "check/p", 1.0, n));
      Tensor fused = start.clone(), passes = start.clone(), m1 = zeros(n), v1 = zeros(n), m2 = zeros(n), v2 = zeros(n);
      Tensor reference = start.clone();
      boolean onDevice;
      try (FusedShardStep kernel = new FusedShardStep()) {
        AdamW torchAdam = libtorchAdamW(reference);
        for (int k = 1; k <= steps; k++) {
          Tensor g = on(Init.normalFull(7, "check/g" + k, 1.0, n));
          AdamArgs a = new AdamArgs(k, LR, BETA1, BETA2, EPS, WD, true);
          kernel.adam(a, fused, g.clone(), m1, v1);
          ShardStep.LIBTORCH.adam(a, passes, g.clone(), m2, v2);
          reference.mutable_grad().put(g); // libtorch's AdamW reads p.grad()
          torchAdam.step();
        }
        onDevice = kernel.onDevice();
      }
      double fusedDiff = maxRelDiff(fused, reference), passesDiff = maxRelDiff(passes, reference);
      String what = "n=" + n + ", " + steps + " steps on " + where;
      return List.of(
          CheckResult.of("fused adamw (" + (onDevice ? "CUDA kernel" : "C++ reference") + ") vs libtorch AdamW",
              fusedDiff <= TOLERANCE, what + "  max rel diff " + String.format("%.2e", fusedDiff) + " (pass <= " + TOLERANCE + ")"),
          CheckResult.of("libtorch passes (ShardStep.LIBTORCH) vs libtorch AdamW", passesDiff <= TOLERANCE,
              what + "  max rel diff " + String.format("%.2e", passesDiff) + " (pass <= " + TOLERANCE + ")"),
          CheckResult.of("fused step ran where the tensors are", onDevice == fused.is_cuda(),
              "tensors on " + (fused.is_cuda() ? "CUDA" : "CPU") + ", kernel on " + (onDevice ? "CUDA" : "the host")));
    }
  }

  private AdamW libtorchAdamW(Tensor reference) {
    reference.requires_grad_(true);
    AdamWOptions o = new AdamWOptions(LR); // betas (0.9, 0.999) and eps 1e-8 are libtorch's defaults
    o.weight_decay().put(WD);
    return new AdamW(new TensorVector(reference), o);
  }

  private Tensor on(Tensor cpu) { return cpu.to(device, ScalarType.Float).contiguous(); }

  private Tensor zeros(long n) { return on(Tensors.zeros(ScalarType.Float, n)); }

  private static double maxRelDiff(Tensor got, Tensor want) {
    Tensor w = want.detach().to(ScalarType.Double).cpu(), d = got.to(ScalarType.Double).cpu().sub(w).abs();
    return d.div(w.abs().clamp_min(new org.bytedeco.pytorch.Scalar(1e-2))).max().item_double();
  }
}
