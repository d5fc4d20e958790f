package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.weft.spec.LrScheduleKind;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.spec.TrainSpec;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class LrScheduleProperties {
  @Property
  void warmsUpThenDecaysToTheFloor(@ForAll @IntRange(min = 0, max = 50) int warmup, @ForAll @IntRange(min = 1, max = 500) int extra,
                                   @ForAll LrScheduleKind kind) {
    int steps = warmup + extra;
    LrSchedule s = new LrSchedule(kind, 1e-3, 1e-4, warmup, steps, Math.max(1, steps / 10));
    double prev = warmup == 0 ? Double.MAX_VALUE : 0;
    for (int i = 1; i <= steps; i++) {
      double lr = s.at(i);
      assertThat(lr).isBetween(0.0, 1e-3 + 1e-15);
      if (i <= warmup) assertThat(lr).isGreaterThan(prev);
      else assertThat(lr).isLessThanOrEqualTo(prev + 1e-15).isGreaterThanOrEqualTo(1e-4 - 1e-15);
      prev = lr;
    }
    assertThat(s.at(steps)).isCloseTo(kind == LrScheduleKind.CONSTANT ? 1e-3 : 1e-4, within(1e-12));
    assertThat(s.at(steps + 50)).as("past the last step the final rate stays").isCloseTo(s.at(steps), within(1e-15));
  }

  private static TrainSpec train(String... sets) {
    var tree = SpecIO.defaultsTree();
    for (String set : sets) SpecOverrides.apply(tree, set);
    return SpecIO.bind(tree).train();
  }

  @Test
  void eachShapeAtKnownPoints() {
    // 100 steps, 10 of warm-up, lr 1e-3 down to 1e-4
    TrainSpec base = train("train.steps=100", "train.warmup=10", "train.lr=0.001", "train.minLr=0.0001");
    assertThat(LrSchedule.of(base, 100).at(5)).isCloseTo(5e-4, within(1e-15));
    assertThat(LrSchedule.of(base, 100).at(55)).as("cosine halfway").isCloseTo(5.5e-4, within(1e-15));
    TrainSpec linear = train("train.steps=100", "train.warmup=10", "train.lr=0.001", "train.minLr=0.0001", "train.schedule=linear");
    assertThat(LrSchedule.of(linear, 100).at(40)).isCloseTo(1e-3 - 9e-4 * 30 / 90, within(1e-15));
    TrainSpec constant = train("train.steps=100", "train.warmup=10", "train.lr=0.001", "train.schedule=constant");
    assertThat(LrSchedule.of(constant, 100).at(99)).isEqualTo(1e-3);
    TrainSpec wsd = train("train.steps=100", "train.warmup=10", "train.lr=0.001", "train.minLr=0", "train.schedule=wsd",
        "train.decayRatio=0.2");
    assertThat(LrSchedule.of(wsd, 100).at(80)).as("stable until the last 20 steps").isEqualTo(1e-3);
    assertThat(LrSchedule.of(wsd, 100).at(90)).isCloseTo(5e-4, within(1e-15));
    assertThat(LrSchedule.of(wsd, 100).at(100)).isCloseTo(0, within(1e-18));
  }

  @Test
  void theFinalRateIsARatioOfLrUnlessGivenAbsolutely() {
    assertThat(train("train.lr=5e-6").finalLr()).isCloseTo(5e-7, within(1e-20));
    assertThat(train("train.lr=5e-6", "train.minLrRatio=0").finalLr()).isZero();
    assertThat(train("train.lr=5e-6", "train.minLr=1e-6").finalLr()).isEqualTo(1e-6);
  }

  @Test
  void warmupAsARatioOfTheSteps() {
    TrainSpec t = train("train.steps=200", "train.warmupRatio=0.05", "train.warmup=3");
    assertThat(t.warmupSteps(200)).isEqualTo(10);
    assertThat(LrSchedule.of(t, 200).at(10)).isEqualTo(t.lr());
    assertThat(train("train.steps=200", "train.warmup=3").warmupSteps(200)).isEqualTo(3);
  }
}
