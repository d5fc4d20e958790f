package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The path from a node's last heartbeat to "lost", with the agent's settings (1 s beats, 5 s failure timeout,
 * 0.1 s polls), for every phase of the beats against the polls: declared lost within the failure timeout plus two
 * polls of the last beat (one to see it, one to notice), so at most the failure timeout after the first beat that did not come.
 */
class DetectionBoundTest {
  private static final long MS = 1_000_000L;
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final long BEAT = 1000 * MS;
  private static final long POLL = 100 * MS;

  /** When the watchdog, polling every 0.1 s from {@code firstPoll}, declares silent a node whose last beat is at {@code lastBeat}. */
  private static long declaredAt(long phase, long firstPoll, long lastBeat) {
    Watchdog nodes = new Watchdog(TIMEOUT);
    nodes.watch("hb/node/1", firstPoll);
    for (long now = firstPoll; now < lastBeat + 3 * TIMEOUT.toNanos(); now += POLL) {
      long beats = now < phase ? 0 : Math.min(now, lastBeat) >= phase ? (Math.min(now, lastBeat) - phase) / BEAT + 1 : 0;
      nodes.observe("hb/node/1", String.valueOf(beats), now);
      if (!nodes.silent(now).isEmpty()) return now;
    }
    throw new AssertionError("never declared lost");
  }

  @Test
  void aSilentNodeIsLostWithinTheTimeoutPlusOnePollOfItsLastBeat() {
    for (long phase = 0; phase < BEAT; phase += 37 * MS) {
      for (long firstPoll = 0; firstPoll < POLL; firstPoll += 23 * MS) {
        long lastBeat = phase + 12 * BEAT; // thirteen beats, then silence
        long lost = declaredAt(phase, firstPoll, lastBeat);
        assertThat(lost - lastBeat).as("phase %d ms, poll %d ms", phase / MS, firstPoll / MS)
            .isGreaterThan(TIMEOUT.toNanos()).isLessThanOrEqualTo(TIMEOUT.toNanos() + 2 * POLL);
        assertThat(lost - (lastBeat + BEAT)).as("after the first missing beat").isLessThanOrEqualTo(TIMEOUT.toNanos());
      }
    }
  }

  @Test
  void theSilenceItReportsIsNoLongerThanTheTimeSinceTheLastBeat() {
    Watchdog nodes = new Watchdog(TIMEOUT);
    nodes.watch("hb/node/1", 0);
    nodes.observe("hb/node/1", "7", 40 * MS); // the beat written at 0, seen by the next poll
    double silent = nodes.silent(40 * MS + TIMEOUT.toNanos() + 50 * MS).get("hb/node/1");
    assertThat(silent).isEqualTo(5.05, org.assertj.core.data.Offset.offset(1e-9));
  }
}
