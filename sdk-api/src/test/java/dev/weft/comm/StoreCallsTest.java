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

  @Test
  void aConnectionTheStoresHostDroppedIsOneLineAndLaterCallsFailAtOnce() {
    StoreCalls c = new StoreCalls("the rendezvous store at 10.0.0.1:29400", Duration.ofSeconds(5),
        "the rendezvous host 10.0.0.1:29400 is gone; use rdzvBackend etcd to survive it");
    // libtorch's words when the host's process died, its native frames appended
    assertThatThrownBy(() -> c.call("get 'r/0/closed'", () -> {
      throw new RuntimeException("Connection reset by peer\nException raised from recvBytes at x.cpp:1\nframe #0: y");
    })).isInstanceOf(StoreCalls.StoreUnreachableException.class)
        .hasMessage("the rendezvous host 10.0.0.1:29400 is gone; use rdzvBackend etcd to survive it");
    assertThat(c.lost()).isTrue();
    assertThatThrownBy(() -> c.call("add 'hb/node/1'", () -> 1L)).hasMessageContaining("is gone");
    assertThatThrownBy(() -> calls.call("add 'k'", () -> { throw new RuntimeException("Broken pipe"); }))
        .hasMessage("the rendezvous store at 10.0.0.1:29400 closed the connection (Broken pipe): its host is gone");
  }
}
