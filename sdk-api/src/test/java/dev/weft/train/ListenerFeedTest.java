package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.metrics.StepMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The training loop tells its listener what exporters need: held bytes once, each checkpoint save's stall. */
class ListenerFeedTest {
  @TempDir Path dir;

  @Test
  void memoryAndCheckpointSavesReachTheListener() {
    List<long[]> memory = new ArrayList<>();
    List<Long> saves = new ArrayList<>();
    StepListener l = new StepListener() {
      @Override public void onStep(StepMetrics m, long totalSteps) {}
      @Override public void onMemory(int rank, long p, long g, long o) { memory.add(new long[] {p, g, o}); }
      @Override public void onCheckpointSaved(int rank, long step, Duration took) {
        assertThat(took).isPositive();
        saves.add(step);
      }
    };
    Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(4).steps(4).checkpointEvery(2).onStep(l).runDir(dir).fit();
    assertThat(memory).hasSize(1);
    assertThat(memory.get(0)[2]).isEqualTo(2 * memory.get(0)[0]); // Adam: two moments per parameter, fp32
    assertThat(saves).containsExactly(2L, 4L);
  }
}
