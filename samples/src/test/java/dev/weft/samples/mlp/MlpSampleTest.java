package dev.weft.samples.mlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.SpecException;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The sample model, unchanged, trains in every layout step for step like on one rank. */
class MlpSampleTest {
  @TempDir Path dir;

  static Trainer sample() {
    return Trainer.model(new MlpFactory(), MlpConfig.tiny()).seqLen(16).globalBatch(8).microBatches(2).steps(6).warmup(1)
        .lr(3e-3).seed(17);
  }

  @ParameterizedTest
  @ValueSource(strings = {"dp2", "tp2", "pp2", "zero3", "dp2tp2pp2"})
  void trainsInEveryLayoutLikeOneRank(String layout) {
    RunResult one = sample().runDir(dir.resolve("one")).fit();
    Trainer t = switch (layout) {
      case "dp2" -> sample().dataParallel(2);
      case "tp2" -> sample().tensorParallel(2).sequenceParallel();
      case "pp2" -> sample().pipeline(2);
      case "zero3" -> sample().dataParallel(2).microBatches(1).zero(3);
      case "dp2tp2pp2" -> sample().dataParallel(2).tensorParallel(2).pipeline(2).microBatches(2).zero(1);
      default -> throw new IllegalArgumentException(layout);
    };
    RunResult r = t.runDir(dir.resolve(layout)).fit();
    close(r.losses(), one.losses());
    assertThat(r.summary().parameters()).isEqualTo(one.summary().parameters());
    assertThat(r.losses().get(5)).isLessThan(r.losses().get(0));
  }

  @Test
  void layoutAndConfigErrorsComeAtValidation() {
    assertThatThrownBy(() -> sample().tensorParallel(3).dataParallel(1).toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("parallel.tp");
    assertThatThrownBy(() -> sample().pipeline(8).toSpec()).hasMessageContaining("4 layers");
    assertThatThrownBy(() -> sample().set("model.config.depth", 3).toSpec()).hasMessageContaining("model.config.depth");
    assertThat(sample().toSpec().model().factory()).isEqualTo(MlpFactory.class.getName());
  }

  private static void close(List<Double> a, List<Double> b) {
    assertThat(a).hasSameSizeAs(b);
    for (int i = 0; i < a.size(); i++) {
      assertThat(Math.abs(a.get(i) - b.get(i)) / b.get(i)).as("step %d: %s vs %s", i + 1, a.get(i), b.get(i)).isLessThanOrEqualTo(1e-4);
    }
  }
}
