package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** tp = 2 and 4 (and dp = 2 × tp = 2) train step for step like the unsplit model. */
public class TensorParallelEquivalenceTest {
  @TempDir Path dir;

  static Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64).set("model.config.heads", 4)
        .seqLen(32).globalBatch(8).steps(20).warmup(2).lr(3e-3).seed(5);
  }

  /**
   * Each step's losses within {@code rel} of each other, relative to the larger of the loss and 1: a loss near zero (a
   * DPO loss of 0.005 after a few steps) is compared absolutely, since its relative difference only measures how close
   * to zero it is (float noise of 1e-7 becomes 1e-3 there), and a bug in a layout shows at the first steps anyway.
   */
  public static void assertClose(List<Double> a, List<Double> b, double rel) {
    assertThat(a).hasSameSizeAs(b);
    for (int i = 0; i < a.size(); i++) {
      assertThat(Math.abs(a.get(i) - b.get(i)) / Math.max(1, Math.abs(b.get(i)))).as("step %d: %s vs %s", i + 1, a.get(i), b.get(i))
          .isLessThanOrEqualTo(rel);
    }
  }

  @Test
  void tp2AndTp4MatchOneRank() {
    RunResult one = small().runDir(dir.resolve("tp1")).fit();
    RunResult tp2 = small().tensorParallel(2).runDir(dir.resolve("tp2")).fit();
    assertClose(tp2.losses(), one.losses(), 1e-4);
    RunResult tp4 = small().tensorParallel(4).runDir(dir.resolve("tp4")).fit();
    assertClose(tp4.losses(), one.losses(), 1e-4);
    assertThat(tp4.summary().parameters()).isEqualTo(one.summary().parameters());
  }

  @Test
  void sequenceParallelMatchesOneRank() {
    RunResult one = small().runDir(dir.resolve("sp-ref")).fit();
    RunResult sp2 = small().tensorParallel(2).sequenceParallel().runDir(dir.resolve("sp2")).fit();
    assertClose(sp2.losses(), one.losses(), 1e-4);
    RunResult sp4 = small().tensorParallel(4).sequenceParallel().runDir(dir.resolve("sp4")).fit();
    assertClose(sp4.losses(), one.losses(), 1e-4);
  }

  @Test
  void dp2Tp2MatchesDp2() {
    RunResult dp2 = small().dataParallel(2).runDir(dir.resolve("dp2")).fit();
    RunResult both = small().dataParallel(2).tensorParallel(2).runDir(dir.resolve("dp2tp2")).fit();
    assertClose(both.losses(), dp2.losses(), 1e-4);
    assertThat(both.summary().replicasConsistent()).isTrue();
  }
}
