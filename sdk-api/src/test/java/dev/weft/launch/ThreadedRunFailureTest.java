package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.metrics.StepMetrics;
import dev.weft.train.StepListener;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Of several failing ranks, the run reports the cause (the first failure that is not a collective's), not the lowest-numbered rank's. */
class ThreadedRunFailureTest {
  @Test
  void theEarliestFailureIsReportedNotAPeersTimeoutAfterIt() {
    CountDownLatch failed = new CountDownLatch(1);
    assertThatThrownBy(() -> ThreadedRun.onRanks(3, Duration.ofSeconds(30), id -> {
      if (id.rank() == 2) {
        failed.countDown();
        throw new IllegalStateException("rank 2's real error");
      }
      try { // ranks 0 and 1 wait for rank 2 as a collective would, then time out
        failed.await(30, TimeUnit.SECONDS);
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new dev.weft.comm.CommException("rank " + id.rank() + " timed out waiting for its peers");
    })).isInstanceOf(IllegalStateException.class).hasMessage("rank 2's real error");
  }

  /**
   * The caller's listener (rank 0's thread) throws at a step boundary: every rank leaves at that boundary and the run
   * lets go of its groups and store at once. Before, rank 1 waited at the boundary for rank 0 while rank 0 waited in
   * the release for rank 1, until the release's deadline (the spec's timeout: here 10 minutes, past this test's limit).
   */
  @Test
  @Timeout(180) // a deadline for a hang, not a measurement: the stopped fit takes seconds even at load 20 on 2 cores
  void aListenerStoppingTheRunAtABoundaryReleasesEveryRankThere(@TempDir Path dir) {
    StepListener stop = new StepListener() {
      @Override public void onStep(StepMetrics m, long total) {}
      @Override public void atStepBoundary(int rank, long step) {
        if (step == 2) throw new IllegalStateException("stopped after step 2");
      }
    };
    assertThatThrownBy(() -> Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 16)
        .set("model.config.heads", 2).seqLen(8).globalBatch(4).steps(5).dataParallel(2).timeout(Duration.ofMinutes(10))
        .onStep(stop).runDir(dir).fit()).hasMessage("stopped after step 2");
  }

  @Test
  void aCauseThrownAfterItsPeersTimedOutStillWins() {
    // the failing rank may wait (a release, a barrier's deadline) before its exception surfaces
    assertThatThrownBy(() -> ThreadedRun.onRanks(2, Duration.ofSeconds(30), id -> {
      if (id.rank() == 1) {
        try {
          Thread.sleep(300);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        throw new IllegalArgumentException("rank 1's shape is wrong");
      }
      throw new dev.weft.comm.CommException("rank 0 timed out waiting for rank 1");
    })).isInstanceOf(IllegalArgumentException.class).hasMessage("rank 1's shape is wrong");
  }
}
