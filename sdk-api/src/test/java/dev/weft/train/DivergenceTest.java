package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose loss or gradients stop being numbers stops at that step with status diverged, on every layout: before,
 * a NaN loss became 0 before the all-reduce (NaN meant "this stage has no loss") and the run "completed" with loss 0.
 */
class DivergenceTest {
  @TempDir Path dir;

  /** lr 1e30 without warm-up or clipping: step 1 is finite, its update makes step 2's loss and gradients NaN. */
  static Trainer exploding() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(8).steps(6).warmup(0).lr(1e30).clipGradNorm(0).seed(3);
  }

  private RunSummary divergesAtStepTwo(Trainer t, String rank) {
    Path run = dir.resolve("run");
    assertThatThrownBy(() -> t.runDir(run).fit()).isInstanceOf(TrainingDivergedException.class)
        .hasMessageStartingWith("training diverged at step 2: the loss is NaN on rank " + rank)
        .hasMessageContaining("train.lr").satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    RunSummary s = MetricsJson.readSummary(run);
    assertThat(s.status()).isEqualTo("diverged");
    assertThat(s.steps()).isEqualTo(2);
    assertThat(s.error()).contains("step 2").contains("rank " + rank);
    assertThat(s.finalLoss()).as("the last finite loss, never 0").isEqualTo(s.initialLoss()).isGreaterThan(1);
    assertThat(s.skippedSteps()).isZero();
    return s;
  }

  @Test
  void oneRank() {
    divergesAtStepTwo(exploding(), "0");
  }

  @Test
  void twoDataParallelRanks() {
    divergesAtStepTwo(exploding().dataParallel(2), "0");
  }

  @Test
  void twoPipelineStagesWhereTheFirstHoldsNoLoss() {
    // stage 0 (rank 0) computes no loss; the NaN is stage 1's and must not be read as "no loss"
    divergesAtStepTwo(exploding().pipeline(2).microBatches(2), "1");
  }

  @Test
  void aHealthyPipelineStillReportsTheMeanLossOfTheLastStage() {
    RunResult r = exploding().lr(1e-3).steps(2).pipeline(2).microBatches(2).runDir(dir.resolve("ok")).fit();
    assertThat(r.summary().status()).isEqualTo("completed");
    assertThat(r.losses()).allSatisfy(l -> assertThat(l).isBetween(1.0, 20.0));
  }

  @Test
  void fp16OverflowSkipsAreAllowedUpToTheBoundAndThenStopTheRun() {
    Divergence d = new Divergence(true, 2);
    assertThat(d.gradientCause(Double.POSITIVE_INFINITY)).isNull();
    assertThat(d.gradientCause(Double.NaN)).isNull();
    assertThat(d.gradientCause(1.0)).as("a finite step resets the count").isNull();
    assertThat(d.gradientCause(Double.NaN)).isNull();
    assertThat(d.gradientCause(Double.NaN)).isNull();
    assertThat(d.gradientCause(Double.NaN)).contains("3 steps in a row").contains("precision.maxConsecutiveSkips=2");
    assertThat(new Divergence(false, 16).gradientCause(Double.NaN)).isEqualTo("the gradient norm is NaN");
  }

  @Test
  void aStageWithoutLossIsNotANaNLoss() {
    double[] none = Divergence.terms(false, Double.NaN), nan = Divergence.terms(true, Double.NaN), two = Divergence.terms(true, 2);
    assertThat(Divergence.mean(sum(none, two))).isEqualTo(2);
    assertThat(Divergence.mean(sum(nan, two))).isNaN();
    assertThat(Divergence.mean(sum(Divergence.terms(true, Double.POSITIVE_INFINITY), two))).isNaN();
  }

  private static double[] sum(double[] a, double[] b) {
    double[] s = new double[a.length];
    for (int i = 0; i < a.length; i++) s[i] = a[i] + b[i];
    return s;
  }
}
