package dev.weft.elastic;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Early loss of another node from a quorum of missed heartbeats. A partition or a dead machine silences every
 * process of a node at once — its agent and each of its workers, separate JVMs beating on their own threads — and
 * stalls this node's collectives with it; a busy JVM on a loaded machine silences only itself, and a live peer
 * lets this node's ranks keep stepping. So a node is lost after the short {@link #quorumTimeout} when all of its
 * processes have been silent that long <em>and</em> none of this node's ranks completed a step meanwhile; the
 * agent-only {@code failureTimeout} stays the fallback for everything else (a stopped agent whose workers beat).
 *
 * <p>Only time this observer itself ran counts: after a gap in its own polls (it was descheduled, or a store
 * call was slow) every early clock restarts, since beats missed by a stalled observer prove nothing. A node
 * whose workers have not all beaten yet (still starting) is not judged early. Pure.
 */
final class NodeQuorum {
  private record Seen(String value, long sinceNanos) {}

  private final Duration quorumTimeout;
  private final Map<Integer, List<String>> processes; // node -> its agent's and its workers' beat keys
  private final Map<String, Seen> seen = new HashMap<>();
  private long localStepNanos;
  private String localSteps;
  private long lastPollNanos;

  /** @param processes each other node's heartbeat keys: its agent's and its workers' */
  NodeQuorum(Duration quorumTimeout, Map<Integer, List<String>> processes, long nowNanos) {
    this.quorumTimeout = quorumTimeout;
    this.processes = Map.copyOf(processes);
    this.localStepNanos = nowNanos;
    this.lastPollNanos = nowNanos;
  }

  /** The short timeout for {@code heartbeat}: three missed beats, never under one second. */
  static Duration quorumTimeout(Duration heartbeat) {
    Duration three = heartbeat.multipliedBy(3);
    return three.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : three;
  }

  /**
   * One poll's readings.
   *
   * @param beats every watched key's counter now (null: not written yet)
   * @param localSteps this node's ranks' step counters, joined (any change is progress)
   */
  void observe(Map<String, String> beats, String localSteps, long nowNanos) {
    if (nowNanos - lastPollNanos > quorumTimeout.toNanos() / 2) restart(nowNanos); // this observer stalled
    lastPollNanos = nowNanos;
    for (var e : beats.entrySet()) {
      Seen s = seen.get(e.getKey());
      if (s == null || !Objects.equals(s.value(), e.getValue())) seen.put(e.getKey(), new Seen(e.getValue(), nowNanos));
    }
    if (!Objects.equals(localSteps, this.localSteps)) {
      this.localSteps = localSteps;
      localStepNanos = nowNanos;
    }
  }

  private void restart(long nowNanos) {
    seen.replaceAll((k, s) -> new Seen(s.value(), nowNanos));
    localStepNanos = nowNanos;
  }

  /** Nodes lost by the quorum rule, with the seconds their processes have all been silent. */
  Map<Integer, Double> lost(long nowNanos) {
    Map<Integer, Double> out = new LinkedHashMap<>();
    if (nowNanos - localStepNanos <= quorumTimeout.toNanos()) return out; // our ranks step: every peer answers them
    for (var node : processes.entrySet()) {
      long loudest = Long.MIN_VALUE;
      boolean judged = true;
      for (String key : node.getValue()) {
        Seen s = seen.get(key);
        if (s == null || s.value() == null) {
          judged = false; // not beaten yet: still starting
          break;
        }
        loudest = Math.max(loudest, s.sinceNanos());
      }
      if (judged && nowNanos - loudest > quorumTimeout.toNanos()) out.put(node.getKey(), (nowNanos - loudest) / 1e9);
    }
    return out;
  }

  Duration quorumTimeout() { return quorumTimeout; }
}
