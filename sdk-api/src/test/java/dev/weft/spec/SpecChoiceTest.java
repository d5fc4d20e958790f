package dev.weft.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.plan.SpecCheck;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpecChoiceTest {
  private static TrainingSpec spec(String set) {
    var tree = SpecIO.defaultsTree();
    SpecOverrides.apply(tree, set);
    return SpecIO.bind(tree);
  }

  @Test
  void everyOptimizerSpellingValidatesAndParsesBack() {
    for (OptimizerKind k : OptimizerKind.values()) {
      TrainingSpec s = SpecCheck.validate(spec("train.optimizer=" + k.spelling()));
      assertThat(OptimizerKind.of(s.train().optimizer())).isEqualTo(k);
    }
  }

  @Test
  void anUnknownOptimizerIsRefusedOnceWithTheValidOnes() {
    assertThatThrownBy(() -> SpecCheck.validate(spec("train.optimizer=nadam"))).isInstanceOf(SpecException.class)
        .hasMessageContaining("'nadam' is not an optimizer; use one of adamw, adam, sgd")
        .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo("train.optimizer"));
    assertThat(SpecChoice.find(OptimizerKind.class, "ADAMW")).isEmpty(); // spellings are exact, as before
  }

  @Test
  void everyScheduleAndDtypeSpellingValidates() {
    for (PipelineSchedule k : PipelineSchedule.values())
      assertThat(PipelineSchedule.of(SpecCheck.validate(spec("parallel.schedule=" + k.spelling())).parallel().schedule())).isEqualTo(k);
    for (PrecisionDtype k : PrecisionDtype.values()) {
      assertThat(PrecisionDtype.of(SpecCheck.validate(spec("precision.dtype=" + k.spelling())).precision().dtype())).isEqualTo(k);
      assertThat(PrecisionDtype.of(SpecCheck.validate(spec("precision.reduceDtype=" + k.spelling())).precision().reduceDtype()))
          .isEqualTo(k);
    }
  }

  @Test
  void everyLrScheduleValidatesAndAnUnknownOneIsRefused() {
    for (LrScheduleKind k : LrScheduleKind.values())
      assertThat(LrScheduleKind.of(SpecCheck.validate(spec("train.schedule=" + k.spelling())).train().schedule())).isEqualTo(k);
    assertThatThrownBy(() -> SpecCheck.validate(spec("train.schedule=step"))).isInstanceOf(SpecException.class)
        .hasMessageContaining("'step' is not a learning-rate schedule; use one of constant, linear, cosine, wsd");
  }

  @Test
  void aSmallLrNeedsNoMinLrAndABadRatioNamesItsField() {
    // issue 42 item 1: an absolute default minLr refused every lr below it
    assertThat(SpecCheck.validate(spec("train.lr=5e-6")).train().finalLr()).isCloseTo(5e-7, org.assertj.core.api.Assertions.within(1e-20));
    for (String set : List.of("train.minLr=1e-4", "train.minLrRatio=1.5", "train.warmupRatio=1", "train.decayRatio=0")) {
      String field = set.substring(0, set.indexOf('='));
      var tree = SpecIO.defaultsTree();
      SpecOverrides.apply(tree, "train.lr=5e-6");
      SpecOverrides.apply(tree, set);
      assertThatThrownBy(() -> SpecCheck.validate(SpecIO.bind(tree))).isInstanceOf(SpecException.class)
          .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo(field));
    }
  }

  @Test
  void anUnknownDtypeIsRefusedByItsField() {
    for (String f : new String[] {"precision.dtype", "precision.reduceDtype"}) {
      assertThatThrownBy(() -> SpecCheck.validate(spec(f + "=fp8"))).isInstanceOf(SpecException.class)
          .hasMessageContaining("'fp8' is not a precision; use one of fp32, bf16, fp16")
          .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo(f));
    }
  }

  @Test
  void zeroTuningOutOfRangeIsRefusedNamingTheField() {
    for (String set : List.of("parallel.zeroPrefetch=-1", "parallel.zeroBucketMiB=0")) {
      String field = set.substring(0, set.indexOf('='));
      assertThatThrownBy(() -> SpecCheck.validate(spec(set))).isInstanceOf(SpecException.class)
          .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo(field));
    }
    TrainingSpec ok = SpecCheck.validate(spec("parallel.zeroBucketMiB=0.5"));
    assertThat(ok.parallel().zeroBucketElements()).isEqualTo(131072);
  }
}
