package dev.weft.elastic;

import dev.weft.preempt.GracePeriod;
import dev.weft.preempt.Preemption;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * A node told to leave (SIGTERM: an eviction, a drain, a spot reclaim, a scale-down) leaves in order. Its agent
 * closes the running generation's round with cause {@code leave} and one node fewer coming back, so the next round
 * seals as soon as the others are in (no heartbeat timeout, no join window), and no restart is counted; then it
 * passes the SIGTERM to its workers. Every worker of the generation, on every node, learns it from the step's
 * reduction and stops after the same step with an emergency checkpoint (exit 5, as for growth); the other agents see
 * the planned leave, wait for their workers and re-form from that checkpoint. The leaving agent waits for its own
 * workers and exits 0.
 */
final class PlannedLeave {
  private final GracePeriod grace;
  private final Consumer<String> say;
  private boolean announced;

  PlannedLeave(GracePeriod grace, Consumer<String> say) {
    this.grace = grace;
    this.say = say;
  }

  /** Whether this node was told to leave. */
  static boolean requested() { return Preemption.requested(); }

  /** Announces the leave of this node in the generation's round (once) and passes the SIGTERM to its workers. */
  void announce(RendezvousRound rounds, RendezvousRound.Membership m, LocalWorkers workers) {
    if (announced) return;
    announced = true;
    String reason = "node " + m.nodeRank() + " was told to stop (SIGTERM): a planned leave";
    boolean first = rounds.close(m.round(), CloseReason.leave(reason).json(), Math.max(1, m.nodes() - 1));
    say.accept((first ? "" : "the generation was already ending; ") + "leaving the run: every worker saves an emergency"
        + " checkpoint at the next step boundary, the other nodes go on from it");
    workers.terminate();
  }

  /** The reason in a round's stored close (JSON) of a planned leave, for the other nodes' log. */
  static String why(String closed) {
    CloseReason c = CloseReason.parse(closed);
    return c == null || c.reason() == null ? closed : c.reason();
  }

  /** How long agents wait for their workers to save and exit after a leave was announced. */
  Duration workersDeadline() { return grace.saveDeadline(); }
}
