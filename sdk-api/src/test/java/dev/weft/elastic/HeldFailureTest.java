package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When a failed worker of this node is blamed, and when its failure is only the echo of another node's. */
class HeldFailureTest {
  private static final long S = 1_000_000_000L;

  private static HeldFailure held(Map<Integer, String> beatsAtExit) {
    return new HeldFailure("rank 0 on node 0 exited with code 1", 1_000, beatsAtExit, 7 * S);
  }

  @Test
  void theWorkerIsBlamedOnceEveryOtherNodeHasBeatenSinceItsExit() {
    HeldFailure h = held(Map.of(1, "10", 2, "4"));
    assertThat(h.workerToBlame(Map.of(1, "11", 2, "4"), Map.of(), 0, S)).as("node 2 not yet seen alive").isFalse();
    assertThat(h.workerToBlame(Map.of(1, "11", 2, "5"), Map.of(), 0, 2 * S)).isTrue();
  }

  @Test
  void aNodeThatNeverBeatsAgainIsNeverBlamedOnTheWorkerBeforeTheDeadline() {
    HeldFailure h = held(Map.of(1, "10"));
    for (long t = 0; t < 7 * S; t += S / 10) assertThat(h.workerToBlame(Map.of(1, "10"), Map.of(), 0, t)).isFalse();
    assertThat(h.workerToBlame(Map.of(1, "10"), Map.of(), 0, 7 * S)).as("past the deadline").isTrue();
  }

  @Test
  void aNodeWhoseBeatWasNotWrittenYetMustWriteOne() {
    Map<Integer, String> none = new HashMap<>();
    none.put(1, null);
    assertThat(held(none).workerToBlame(none, Map.of(), 0, S)).isFalse();
    assertThat(held(none).workerToBlame(Map.of(1, "1"), Map.of(), 0, S)).isTrue();
  }

  @Test
  void aWorkerOfAnotherNodeThatFailedFirstIsBlamedByItsOwnNode() {
    HeldFailure h = held(Map.of(1, "10"));
    assertThat(h.workerToBlame(Map.of(1, "11"), Map.of(1, 990L), 0, S)).as("node 1's worker failed 10 ms earlier").isFalse();
    assertThat(h.workerToBlame(Map.of(1, "11"), Map.of(1, 1_010L), 0, S)).as("node 1's failed later: an echo").isTrue();
    assertThat(h.workerToBlame(Map.of(1, "11"), Map.of(1, 1_000L), 0, S)).as("a tie goes to the lower node").isTrue();
    assertThat(h.workerToBlame(Map.of(1, "11"), Map.of(1, 990L), 0, 7 * S)).as("past the deadline").isTrue();
  }
}
