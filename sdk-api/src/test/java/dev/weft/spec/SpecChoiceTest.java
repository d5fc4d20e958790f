package dev.weft.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.plan.SpecCheck;
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
}
