package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** The loss terms summed over any ranks: a rank without a loss never counts, any non-finite loss is divergence. */
class DivergenceProperties {
  record Rank(boolean holds, double loss) {}

  @Provide
  Arbitrary<Rank> rank() {
    Arbitrary<Double> loss = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(8, Arbitraries.doubles().between(0, 20)),
        net.jqwik.api.Tuple.of(1, Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY)));
    return Combinators.combine(Arbitraries.of(true, false), loss).as(Rank::new);
  }

  @Property
  void theMeanIsOverLossHoldersAndNaNWhenAnyHolderIsNotFinite(@ForAll @Size(min = 1, max = 8) List<@net.jqwik.api.From("rank") Rank> ranks) {
    double[] sum = new double[4];
    for (Rank r : ranks) {
      double[] t = Divergence.terms(r.holds(), r.loss());
      for (int i = 0; i < 4; i++) sum[i] += t[i];
    }
    List<Rank> holders = ranks.stream().filter(Rank::holds).toList();
    boolean diverged = holders.stream().anyMatch(r -> !Double.isFinite(r.loss()));
    double mean = Divergence.mean(sum);
    if (holders.isEmpty() || diverged) {
      assertThat(mean).isNaN();
    } else {
      assertThat(mean).isCloseTo(holders.stream().mapToDouble(Rank::loss).average().orElseThrow(), within(1e-9));
    }
    assertThat(sum[1]).isEqualTo(holders.size());
  }

  @Property
  void fp16SkipsStopTheRunOnlyPastTheBoundInARow(@ForAll @IntRange(min = 0, max = 5) int bound,
                                                 @ForAll @Size(max = 30) List<Boolean> overflows) {
    Divergence d = new Divergence(true, bound);
    int run = 0;
    for (boolean overflow : overflows) {
      run = overflow ? run + 1 : 0;
      String cause = d.gradientCause(overflow ? Double.POSITIVE_INFINITY : 1.0);
      assertThat(cause != null).isEqualTo(run > bound);
      if (cause != null) return; // the run stopped here
    }
  }
}
