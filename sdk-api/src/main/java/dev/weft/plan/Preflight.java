package dev.weft.plan;

import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The memory check before any rank starts: the planned ranks that run on this machine must fit its
 * memory, or the run stops with one line naming the field(s) that drive the estimate.
 */
public final class Preflight {
  private static final List<String> SHAPE_KEYS = List.of("hidden", "layers", "vocab", "mlpRatio", "heads");

  private Preflight() {}

  /** This machine's memory (the container's limit where there is one). */
  public static double machineBytes() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
  }

  /** Throws a {@link SpecException} when {@code ranks} (all on this machine) need more than {@code machineBytes}. */
  public static void check(TrainingSpec spec, List<RankPlan> ranks, double machineBytes) {
    double total = 0, state = 0, act = 0;
    RankPlan biggest = ranks.get(0);
    for (RankPlan r : ranks) {
      total += r.total();
      state += r.parameters() + r.gradients() + r.optimizerState();
      act += r.activations();
      if (r.total() > biggest.total()) biggest = r;
    }
    if (total <= machineBytes) return;
    String fields = String.join(", ", drivers(spec, state >= act));
    throw new SpecException(fields, String.format(Locale.ROOT,
        "the %d rank(s) on this machine need about %s (rank %d: parameters %s, gradients %s, optimizer state %s, activations %s%s)"
            + " but it has %s; lower %s, or spread the model with parallel.tp/pp or parallel.zero (weft plan shows the figures)",
        ranks.size(), Bytes.human(total), biggest.rank(), Bytes.human(biggest.parameters()), Bytes.human(biggest.gradients()),
        Bytes.human(biggest.optimizerState()), Bytes.human(biggest.activations()), biggest.pendingGradients() > 0
            ? ", autograd's gradients until the optimizer copies them " + Bytes.human(biggest.pendingGradients()) : "",
        Bytes.human(machineBytes), fields));
  }

  /**
   * A model built whole in this process (eval, generate, export) holds at least its fp32 weights: refused in one
   * line when they cannot fit, before any is allocated (a config.json saying n_layer 1000000 would take the machine).
   */
  public static void checkWhole(TrainingSpec spec, double machineBytes) { checkWhole(spec, machineBytes, "fp32"); }

  /** As {@link #checkWhole(TrainingSpec, double)} for weights held in {@code dtype} ("bf16"/"fp16": a mapped 16-bit build, 2 B each). */
  public static void checkWhole(TrainingSpec spec, double machineBytes, String dtype) {
    double share = "fp32".equals(dtype) ? 1 : 0.5; // the plan counts fp32 parameters
    MemoryPlan.ranks(spec).ifPresent(ranks -> {
      RankPlan r = ranks.get(0);
      double need = r.parameters() * share + r.runtime();
      if (need <= machineBytes) return;
      String fields = String.join(", ", drivers(spec, true));
      throw new SpecException(fields, String.format(Locale.ROOT,
          "the whole model needs about %s (%.3g parameters in %s, and the runtime) but this machine has %s; use a smaller model",
          Bytes.human(need), r.parameterCount(), dtype, Bytes.human(machineBytes)));
    });
  }

  /** The fields to change: the model's explicit shape settings (or its size) for model state, batch and length for activations. */
  static List<String> drivers(TrainingSpec spec, boolean modelState) {
    List<String> out = new ArrayList<>();
    Set<String> set = spec.model().config().keySet();
    for (String k : SHAPE_KEYS) if (set.contains(k)) out.add("model.config." + k);
    if (modelState) {
      if (out.isEmpty()) out.add(spec.model().hasPretrained() ? "model.pretrained" : "model.config.size"); // sizes from its config.json
    } else {
      out.add(0, "train.globalBatch");
      out.add(0, "data.seqLen");
    }
    return out;
  }
}
