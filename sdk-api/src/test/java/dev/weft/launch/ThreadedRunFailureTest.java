package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

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
