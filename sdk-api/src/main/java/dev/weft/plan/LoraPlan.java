package dev.weft.plan;

import dev.weft.spec.LoraSpec;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code weft plan}'s LoRA line: what trains (the adapters), what is held frozen (the base, once, whole on every dp
 * rank), and the memory LoRA saves against a full fine-tune of the same layout, for the rank that needs the most. Pure.
 */
public final class LoraPlan {
  private LoraPlan() {}

  public static Optional<String> line(TrainingSpec spec, List<RankPlan> ranks, List<RankPlan> full) {
    LoraSpec l = spec.train().lora();
    if (!l.enabled() || ranks.isEmpty()) return Optional.empty();
    RankPlan r = biggest(ranks), f = biggest(full);
    if (r.trainableCount() >= r.parameterCount()) { // the shape found no module the targets name
      return Optional.of("LoRA rank " + l.rank() + ": none of " + String.join(", ", l.targets()) + " is a projection the planner"
          + " knows in model.factory=" + spec.model().factory() + ", so the table counts a full fine-tune; weft train refuses"
          + " targets the model does not have (train.lora.targets)");
    }
    double state = r.gradients() + r.optimizerState(), fullState = f.gradients() + f.optimizerState();
    // the frozen base as held: fp32, or the compressed projections (and, unsplit, the 16-bit embedding and head)
    String held = "none".equals(l.quantize()) || l.quantize().isBlank() ? "fp32" : "train.lora.quantize " + l.quantize();
    return Optional.of(String.format(Locale.ROOT, "LoRA rank %d on %s: %s of %s parameters train on rank %d; the frozen base"
        + " (%s, %s) is held whole on every dp rank, without gradients or optimizer state; gradients + optimizer state"
        + " %s vs %s for a full fine-tune (%.1f %%); rank total %s vs %s (saves %s per rank)", l.rank(), String.join(", ", l.targets()),
        Bytes.count(r.trainableCount()), Bytes.count(r.parameterCount()), r.rank(), held, Bytes.human(r.parameters() - 4 * r.trainableCount()),
        Bytes.human(state), Bytes.human(fullState), 100 * state / fullState, Bytes.human(r.total()), Bytes.human(f.total()),
        Bytes.human(f.total() - r.total())));
  }

  private static RankPlan biggest(List<RankPlan> ranks) {
    return ranks.stream().max(java.util.Comparator.comparingDouble(RankPlan::total)).orElseThrow();
  }
}
