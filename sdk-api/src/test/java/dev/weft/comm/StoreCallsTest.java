package dev.weft.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Deadlines on store calls: a call that never returns (as on a cut link) ends in a one-line error, and so does every later one. */
class StoreCallsTest {
  private final StoreCalls calls = new StoreCalls("the rendezvous store at 10.0.0.1:29400", Duration.ofMillis(300));

  @Test
  void aCallThatAnswersReturnsItsValueAndItsOwnErrors() {
    assertThat(calls.call("add 'x'", () -> 41L + 1)).isEqualTo(42L);
    assertThatThrownBy(() -> calls.call("get 'y'", () -> { throw new IllegalStateException("no such key"); }))
        .isInstanceOf(IllegalStateException.class).hasMessage("no such key");
    assertThat(calls.lost()).isFalse();
  }

  @Test
  void aCallPastItsDeadlineMarksTheStoreLostAndLaterCallsFailAtOnce() {
    CountDownLatch never = new CountDownLatch(1);
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> calls.run("add 'hb/node/1'", () -> {
      try {
        never.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    })).isInstanceOf(StoreCalls.StoreUnreachableException.class)
        .hasMessage("the rendezvous store at 10.0.0.1:29400 did not answer add 'hb/node/1' within 0.3 s:"
            + " this node is cut off from it or its host is gone");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(calls.lost()).isTrue();
    assertThatThrownBy(() -> calls.call("get 'z'", () -> "fine")).isInstanceOf(StoreCalls.StoreUnreachableException.class)
        .hasMessageContaining("add 'hb/node/1'");
    never.countDown();
  }

  @Test
  void aLongerLimitIsGivenToABlockingWait() {
    String v = calls.call("get 'k'", Duration.ofSeconds(30), () -> {
      try {
        Thread.sleep(400);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "v";
    });
    assertThat(v).isEqualTo("v");
  }
}
