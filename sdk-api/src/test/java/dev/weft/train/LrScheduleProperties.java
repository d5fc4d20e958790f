package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class LrScheduleProperties {
  @Property
  void warmsUpThenDecaysToTheFloor(@ForAll @IntRange(min = 0, max = 50) int warmup, @ForAll @IntRange(min = 1, max = 500) int extra) {
    int steps = warmup + extra;
    LrSchedule s = new LrSchedule(1e-3, 1e-4, warmup, steps);
    double prev = warmup == 0 ? Double.MAX_VALUE : 0;
    for (int i = 1; i <= steps; i++) {
      double lr = s.at(i);
      assertThat(lr).isBetween(0.0, 1e-3 + 1e-15);
      if (i <= warmup) assertThat(lr).isGreaterThan(prev);
      else assertThat(lr).isLessThanOrEqualTo(prev + 1e-15).isGreaterThanOrEqualTo(1e-4 - 1e-15);
      prev = lr;
    }
    assertThat(s.at(steps)).isCloseTo(1e-4, within(1e-12));
  }
}
