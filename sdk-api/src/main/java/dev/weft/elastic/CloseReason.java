package dev.weft.elastic;

import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * Why a generation's round was closed, as stored under the round (JSON): {@code cause} {@code failure},
 * {@code scale-up}, {@code diverged} or {@code leave}, the reason, when it was closed and the last sign of life of what failed
 * (detection time = {@code atMs - failedAtMs}).
 */
record CloseReason(String cause, String reason, long atMs, long failedAtMs) {
  static final String FAILURE = "failure";
  static final String SCALE_UP = "scale-up";
  /** A worker's run diverged (non-finite loss or gradients): every agent stops, none restarts. */
  static final String DIVERGED = "diverged";
  /** A node was told to stop (SIGTERM) and leaves after the generation's emergency checkpoint: not a failure. */
  static final String LEAVE = "leave";

  /** A node leaves on purpose ({@link PlannedLeave}). */
  static CloseReason leave(String reason) { return now(LEAVE, reason, 0); }

  boolean leave() { return LEAVE.equals(cause); }

  /** The run diverged: restarting it would diverge again. */
  static CloseReason diverged(String reason) { return now(DIVERGED, reason, 0); }

  boolean diverged() { return DIVERGED.equals(cause); }

  /** A failure now, of something silent for {@code silentMs}. */
  static CloseReason failure(String reason, long silentMs) { return now(FAILURE, reason, silentMs); }

  /** A stop at a step boundary now, to take in a waiting node. */
  static CloseReason scaleUp(String reason) { return now(SCALE_UP, reason, 0); }

  private static CloseReason now(String cause, String reason, long silentMs) {
    long now = System.currentTimeMillis();
    return new CloseReason(cause, reason, now, now - silentMs);
  }

  boolean scaleUp() { return SCALE_UP.equals(cause); }

  String json() {
    Map<String, Object> m = new HashMap<>();
    m.put("cause", cause);
    m.put("reason", reason);
    m.put("at_ms", atMs);
    m.put("failed_at_ms", failedAtMs);
    return MetricsJson.json(m);
  }

  /** The stored form read back; null when it is not JSON. */
  static CloseReason parse(String stored) {
    try {
      var n = MetricsJson.MAPPER.readTree(stored);
      long closedAt = n.path("at_ms").asLong(0);
      return new CloseReason(n.path("cause").asText(FAILURE), n.path("reason").asText(null), closedAt,
          n.path("failed_at_ms").asLong(closedAt));
    } catch (IOException e) {
      return null;
    }
  }
}
