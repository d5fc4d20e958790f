package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.preempt.GracePeriod;
import dev.weft.spec.TrainingSpec;
import org.junit.jupiter.api.Test;

/** weft plan's emergency-save line: the checkpoint's bytes over 100 MB/s against the grace period's save deadline. */
class SaveTimePlanTest {
  private static SaveTimePlan plan(int hidden, int layers, int zero, int grace) {
    TrainingSpec spec = Trainer.model("gpt").set("model.config.layers", layers).set("model.config.hidden", hidden)
        .set("model.config.heads", 8).seqLen(64).globalBatch(8).dataParallel(2).set("parallel.zero", zero).toSpec();
    return SaveTimePlan.of(spec, MemoryPlan.ranks(spec).orElseThrow(), new GracePeriod(grace));
  }

  @Test
  void aSmallModelFitsTheDefaultGracePeriod() {
    SaveTimePlan p = plan(512, 8, 0, 120);
    assertThat(p.checkpointBytes()).isBetween(25e6 * 12 * 0.9, 25.6e6 * 12 * 1.1); // fp32 weights + Adam's two moments, once
    assertThat(p.fits()).isTrue();
    assertThat(p.line()).startsWith("emergency checkpoint on SIGTERM: ").contains("within the 108 s");
  }

  @Test
  void zeroShardingDoesNotChangeTheBytesSaved() {
    assertThat(plan(512, 8, 1, 120).checkpointBytes()).isCloseTo(plan(512, 8, 0, 120).checkpointBytes(),
        org.assertj.core.data.Percentage.withPercentage(1));
  }

  @Test
  void aLargeModelWithAShortGracePeriodIsWarnedAboutWithWhatToChange() {
    SaveTimePlan p = plan(2048, 48, 0, 10);
    assertThat(p.fits()).isFalse();
    assertThat(p.line()).startsWith("warning: deployment.terminationGraceSeconds=10 leaves 8 s").contains("raise it to at least");
  }

  @Test
  void nodesWriteAtOnceSoTheBusiestNodeSetsTheTime() {
    TrainingSpec apart = Trainer.model("gpt").set("model.config.layers", 8).set("model.config.hidden", 512)
        .set("model.config.heads", 8).seqLen(64).globalBatch(8).dataParallel(2).set("parallel.zero", 1).toSpec();
    TrainingSpec together = Trainer.model("gpt").set("model.config.layers", 8).set("model.config.hidden", 512)
        .set("model.config.heads", 8).seqLen(64).globalBatch(8).dataParallel(2).set("parallel.zero", 1)
        .set("deployment.procsPerNode", 2).toSpec();
    SaveTimePlan a = SaveTimePlan.of(apart, MemoryPlan.ranks(apart).orElseThrow(), new GracePeriod(120));
    SaveTimePlan t = SaveTimePlan.of(together, MemoryPlan.ranks(together).orElseThrow(), new GracePeriod(120));
    assertThat(t.checkpointBytes()).isEqualTo(a.checkpointBytes());
    assertThat(t.seconds()).as("one node writes both ranks' parts").isGreaterThan(a.seconds() * 1.2);
    assertThat(t.seconds()).isCloseTo(t.checkpointBytes() / SaveTimePlan.WRITE_BYTES_PER_S, org.assertj.core.data.Percentage.withPercentage(1));
  }
}
