package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import dev.weft.spec.LossSpikeSpec;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41 item 6: a learning-rate blow-up whose loss stays finite (lr = 50: the loss climbs from ~5.5 to thousands)
 * reported {@code completed}. With {@code train.lossSpike} on, a loss above factor × the recent median stops the run as
 * diverged (exit 3) or leaves the step out; off (the default), the run completes as before.
 */
class LossSpikeTest {
  @TempDir Path dir;

  /** gpt tiny-ish at lr 50, no warm-up, clipped to norm 1: finite losses that blow up within a few steps. */
  static Trainer blowUp() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(12).warmup(0).lr(50).seed(3);
  }

  @Test
  void theGuardDecidesFromTheMedianOfAcceptedLosses() {
    LossSpike stop = new LossSpike(new LossSpikeSpec(3, 5, "stop"));
    for (double l : new double[] {5, 6, 4}) assertThat(stop.check(l)).isEqualTo(LossSpike.Verdict.ACCEPT);
    assertThat(stop.check(14.9)).as("below 3 × median 5").isEqualTo(LossSpike.Verdict.ACCEPT);
    assertThat(stop.check(100)).isEqualTo(LossSpike.Verdict.STOP);
    assertThat(stop.cause(100)).contains("loss 100.0").contains("train.lossSpike.factor=3.0").contains("5.5");

    LossSpike first = new LossSpike(new LossSpikeSpec(3, 4, "stop"));
    assertThat(first.check(1e9)).as("the first loss has nothing to compare with").isEqualTo(LossSpike.Verdict.ACCEPT);
    assertThat(first.check(3.1e9)).as("the second is compared with the first").isEqualTo(LossSpike.Verdict.STOP);
    LossSpike s = new LossSpike(new LossSpikeSpec(3, 4, "skip"));
    for (double l : new double[] {5, 5, 5}) s.check(l);
    assertThat(List.of(s.check(50), s.check(50), s.check(50))).containsOnly(LossSpike.Verdict.SKIP);
    assertThat(s.check(50)).as("window (4) spikes in a row stop the run").isEqualTo(LossSpike.Verdict.STOP);
    assertThat(new LossSpike(LossSpikeSpec.off()).check(1e30)).isEqualTo(LossSpike.Verdict.ACCEPT);
  }

  @Test
  void aFiniteBlowUpStopsAsDivergedWithTheGuardOnAndCompletesWithItOff() {
    RunResult off = blowUp().runDir(dir.resolve("off")).fit();
    assertThat(off.summary().status()).as("the default: no guard").isEqualTo("completed");
    assertThat(off.losses()).allMatch(Double::isFinite);
    double peak = off.losses().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    assertThat(peak).as("the blow-up this test needs: %s", off.losses()).isGreaterThan(20 * off.losses().get(0));

    Path run = dir.resolve("on");
    assertThatThrownBy(() -> blowUp().lossSpike(5, 20, "stop").runDir(run).fit()).as("losses without the guard: %s", off.losses())
        .isInstanceOf(TrainingDivergedException.class)
        .hasMessageContaining("train.lossSpike.factor=5.0").satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    RunSummary s = MetricsJson.readSummary(run);
    assertThat(s.status()).isEqualTo("diverged");
    assertThat(s.steps()).isLessThan(12);
  }

  @Test
  void skipLeavesTheSpikesUpdatesOut() {
    RunResult r = blowUp().lossSpike(5, 20, "skip").runDir(dir.resolve("skip")).fit();
    assertThat(r.summary().status()).isEqualTo("completed");
    assertThat(r.summary().skippedSteps()).isPositive();
  }

  @Test
  void badSettingsNameTheirField() {
    assertThatThrownBy(() -> blowUp().lossSpike(0.5, 20, "stop").toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("train.lossSpike.factor");
    assertThatThrownBy(() -> blowUp().lossSpike(5, 20, "rollback").toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("train.lossSpike.action").hasMessageContaining("checkpoint.every");
    assertThatThrownBy(() -> blowUp().lossSpike(5, 20, "undo").toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("use stop, skip or rollback");
    assertThatThrownBy(() -> blowUp().lossSpike(5, 2, "stop").toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("train.lossSpike.window");
  }
}
