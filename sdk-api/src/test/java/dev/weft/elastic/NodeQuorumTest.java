package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeQuorumTest {
  private static final long MS = 1_000_000L;
  private static final Duration Q = Duration.ofMillis(1500);
  private static final String AGENT = "hb/node/1";
  private static final String W2 = "hb/rank/2";
  private static final String W3 = "hb/rank/3";

  private final NodeQuorum q = new NodeQuorum(Q, Map.of(1, List.of(AGENT, W2, W3)), 0);
  private final Map<String, String> beats = new HashMap<>(Map.of(AGENT, "1", W2, "1", W3, "1"));

  /** Polls every 100 ms from {@code fromMs} to {@code toMs}, bumping the listed keys each poll, local steps fixed at {@code steps}. */
  private void poll(long fromMs, long toMs, String steps, String... bumping) {
    for (long t = fromMs; t <= toMs; t += 100) {
      for (String k : bumping) beats.merge(k, "1", (a, b) -> String.valueOf(Long.parseLong(a) + 1));
      q.observe(Map.copyOf(beats), steps, t * MS);
    }
  }

  @Test
  void aNodeWhoseEveryProcessFallsSilentWhileOurRanksStallIsLostAfterTheQuorumTimeout() {
    poll(0, 1000, "5,", AGENT, W2, W3);
    poll(1100, 2500, "5,");
    assertThat(q.lost(2500 * MS)).isEmpty(); // 1.5 s exactly: not yet
    poll(2600, 2600, "5,");
    assertThat(q.lost(2600 * MS)).containsOnlyKeys(1);
    assertThat(q.lost(2600 * MS).get(1)).isCloseTo(1.6, org.assertj.core.data.Offset.offset(0.01));
  }

  @Test
  void oneLiveProcessOfTheNodeKeepsItIn() {
    poll(0, 5000, "5,", W3); // agent and one worker stalled (a busy JVM, a stopped agent): the failure timeout's case
    assertThat(q.lost(5000 * MS)).isEmpty();
  }

  @Test
  void ourRanksSteppingProveThePeerAnswersWhateverItsBeatsSay() {
    for (long t = 0; t <= 5000; t += 100) q.observe(Map.copyOf(beats), t / 300 + ",", t * MS); // beats late, steps go on
    assertThat(q.lost(5000 * MS)).isEmpty();
  }

  @Test
  void aStalledObserverRestartsTheClocks() {
    poll(0, 1000, "5,", AGENT, W2, W3);
    poll(3000, 3000, "5,"); // this agent was descheduled for 2 s: the silence it finds proves nothing
    assertThat(q.lost(3000 * MS)).isEmpty();
    poll(3100, 4500, "5,");
    assertThat(q.lost(4500 * MS)).isEmpty();
    poll(4600, 4600, "5,");
    assertThat(q.lost(4600 * MS)).containsOnlyKeys(1);
  }

  @Test
  void aNodeWhoseWorkersHaveNotBeatenYetIsNotJudgedEarly() {
    beats.remove(W3);
    Map<String, String> starting = new HashMap<>(beats);
    starting.put(W3, null);
    for (long t = 0; t <= 5000; t += 100) q.observe(starting, "null,", t * MS);
    assertThat(q.lost(5000 * MS)).isEmpty();
  }

  @Test
  void theQuorumTimeoutIsThreeBeatsAndAtLeastASecond() {
    assertThat(NodeQuorum.quorumTimeout(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(1500));
    assertThat(NodeQuorum.quorumTimeout(Duration.ofMillis(100))).isEqualTo(Duration.ofSeconds(1));
    assertThat(NodeQuorum.quorumTimeout(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(3));
  }
}
