package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42 item 3, early stopping: a run whose held-out loss rises (lr 50 blows the model up) stops once it has not
 * improved for {@code patience} evaluations, completed at that step; without it the run goes to its last step.
 */
class EarlyStoppingTest {
  @TempDir Path dir;

  @Test
  void aRunWhoseEvalLossRisesStopsAfterPatienceEvaluations() {
    RunResult r = LossSpikeTest.blowUp().validationSplit(0.05).set("train.evalEvery", 1).set("train.earlyStopping.patience", 2)
        .runDir(dir.resolve("early")).fit();
    assertThat(r.summary().status()).isEqualTo("completed");
    assertThat(r.losses()).hasSizeLessThan(12);
    assertThat(r.summary().steps()).isEqualTo(r.losses().size());
    assertThat(MetricsJson.readSummary(dir.resolve("early")).steps()).isEqualTo(r.losses().size());
    RunResult whole = LossSpikeTest.blowUp().validationSplit(0.05).set("train.evalEvery", 1).runDir(dir.resolve("whole")).fit();
    assertThat(whole.losses()).hasSize(12);
  }

  @Test
  void patienceNeedsAHeldOutLoss() {
    assertThatThrownBy(() -> LossSpikeTest.blowUp().set("train.earlyStopping.patience", 2).toSpec()).isInstanceOf(SpecException.class)
        .hasMessageContaining("train.earlyStopping.patience").hasMessageContaining("train.evalEvery");
  }
}
