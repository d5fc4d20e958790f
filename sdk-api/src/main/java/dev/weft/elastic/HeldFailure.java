package dev.weft.elastic;

import java.util.Map;
import java.util.Objects;

/**
 * A worker of this node exited with an error while the generation spans several nodes. Its exit may only be the
 * echo of another node's death or failure (its collectives lose that peer at once, seconds before a dead node's
 * silence is noticed), so the blame is held. Once every other agent has beaten since the exit they are alive, and
 * unless a worker of another node exited first (that node blames its own), this worker is at fault: about one
 * heartbeat later. A node that stays silent is declared lost by the failure timeout instead, and this failure is
 * dropped. Past {@code deadlineNanos} the worker is blamed whatever the beats say. Pure.
 *
 * @param beatsAtExit every other node's heartbeat counter as read right after the exit (null: never written)
 */
record HeldFailure(String reason, long exitedAtMs, Map<Integer, String> beatsAtExit, long deadlineNanos) {
  /** The key under which a node publishes the time its first worker failed (epoch ms). */
  static String exitKey(int nodeRank) { return "exit/" + nodeRank; }

  /**
   * True once this node's worker is to blame.
   *
   * @param beatsNow every other node's heartbeat counter now
   * @param otherExits when other nodes' workers failed (epoch ms), for those that did
   */
  boolean workerToBlame(Map<Integer, String> beatsNow, Map<Integer, Long> otherExits, int self, long nowNanos) {
    if (nowNanos >= deadlineNanos) return true;
    for (var e : beatsAtExit.entrySet()) {
      if (Objects.equals(e.getValue(), beatsNow.get(e.getKey()))) return false; // not yet proven alive
    }
    for (var e : otherExits.entrySet()) {
      long t = e.getValue();
      if (t < exitedAtMs || (t == exitedAtMs && e.getKey() < self)) return false; // theirs came first: they close the round
    }
    return true;
  }
}
