package dev.weft.plan;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import java.util.OptionalInt;

/**
 * {@code weft plan --memory}: what fits in a given memory per rank by {@link MemoryPlan}'s count (the rank that needs
 * the most): the longest sequence at the spec's batch, the largest global batch at its sequence. Pure. The plan grows
 * with both (more tokens, more activations and logits), so a binary search finds each bound.
 */
public final class FitPlan {
  /** The longest {@code data.seqLen} searched. */
  public static final int MAX_SEQ = 1 << 20;
  /** The largest {@code train.globalBatch} searched. */
  public static final int MAX_BATCH = 1 << 16;

  private FitPlan() {}

  /** The most any rank of {@code spec} needs, in bytes; empty when its model factory does not describe its shape. */
  public static java.util.Optional<Double> peak(TrainingSpec spec) {
    return MemoryPlan.ranks(spec).map(FitPlan::largest);
  }

  static double largest(List<RankPlan> ranks) {
    return ranks.stream().mapToDouble(RankPlan::total).max().orElse(0);
  }

  /** The longest sequence (at the spec's batch) that fits {@code memory} bytes per rank; empty when none does. */
  public static OptionalInt longestSeq(TrainingSpec spec, double memory) {
    int cp = spec.parallel().cp(), unit = cp > 1 ? 2 * cp : 1; // context parallelism's zigzag: a multiple of 2·cp
    return largestFitting(1, MAX_SEQ / unit, n -> with(spec, "data.seqLen", n * unit), memory, unit);
  }

  /** The largest global batch (at the spec's sequence) that fits {@code memory} bytes per rank; empty when none does. */
  public static OptionalInt largestBatch(TrainingSpec spec, double memory) {
    int unit = spec.parallel().dp() * spec.parallel().microBatches(); // every dp rank and micro-batch gets a sample
    return largestFitting(1, MAX_BATCH / unit, n -> with(spec, "train.globalBatch", n * unit), memory, unit);
  }

  /** The largest n in [lo, hi] whose spec fits, times {@code unit}, by bisection over a plan that grows with n. */
  private static OptionalInt largestFitting(int lo, int hi, java.util.function.IntFunction<TrainingSpec> at, double memory, int unit) {
    if (!fits(at.apply(lo), memory)) return OptionalInt.empty();
    while (lo < hi) {
      int mid = lo + (hi - lo + 1) / 2;
      if (fits(at.apply(mid), memory)) lo = mid;
      else hi = mid - 1;
    }
    return OptionalInt.of(lo * unit);
  }

  private static boolean fits(TrainingSpec spec, double memory) {
    return peak(spec).orElseThrow() <= memory;
  }

  /** {@code spec} with one whole-number field changed. */
  static TrainingSpec with(TrainingSpec spec, String path, int value) {
    ObjectNode tree = SpecIO.toTree(spec);
    SpecOverrides.set(tree, path, IntNode.valueOf(value));
    return SpecIO.bind(tree);
  }
}
