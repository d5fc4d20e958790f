package dev.weft.plan;

import dev.weft.preempt.GracePeriod;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import java.util.Locale;

/**
 * Whether an emergency checkpoint fits the grace period between SIGTERM and SIGKILL: the checkpoint's bytes (fp32
 * trained weights once per model slice — under LoRA the adapters alone, the frozen base is no checkpoint entry — the optimizer state once whatever the ZeRO sharding), written by every node at
 * once, so the time is the busiest node's bytes ({@code deployment.procsPerNode} consecutive ranks) over a
 * conservative per-node write bandwidth, against the workers' save deadline ({@link GracePeriod#saveDeadline()}).
 */
public record SaveTimePlan(double checkpointBytes, double seconds, GracePeriod grace) {
  /** Conservative bytes per second one node writes a checkpoint at (network storage or an object store). */
  public static final double WRITE_BYTES_PER_S = 100e6;

  public static SaveTimePlan of(TrainingSpec spec, List<RankPlan> ranks, GracePeriod grace) {
    boolean sharded = spec.parallel().zero() >= 1;
    int perNode = Math.max(1, spec.deployment().procsPerNode());
    double total = 0, node = 0, busiest = 0;
    for (RankPlan r : ranks) {
      int dpRank = r.rank() / (r.tp() * r.pp());
      // dp rank 0 writes its slice's weights; the optimizer state is written by its owners (all ranks once sharded)
      double bytes = (dpRank == 0 ? r.trainableCount() * 4 : 0) + (sharded || dpRank == 0 ? r.optimizerState() : 0);
      total += bytes;
      node += bytes;
      if ((r.rank() + 1) % perNode == 0 || r.rank() == ranks.size() - 1) {
        busiest = Math.max(busiest, node);
        node = 0;
      }
    }
    return new SaveTimePlan(total, busiest / WRITE_BYTES_PER_S, grace);
  }

  /** Whether the estimated save ends before the workers' deadline. */
  public boolean fits() { return seconds <= grace.saveDeadline().toSeconds(); }

  /** The plan's line: the estimate, and a warning with what to change when it does not fit. */
  public String line() {
    String est = String.format(Locale.ROOT, "%s, the busiest node's part at a conservative %.0f MB/s ≈ %.0f s",
        Bytes.human(checkpointBytes), WRITE_BYTES_PER_S / 1e6, Math.ceil(seconds));
    if (fits()) {
      return "emergency checkpoint on SIGTERM: " + est + ", within the " + grace.saveDeadline().toSeconds() + " s the "
          + grace.seconds() + " s grace period leaves";
    }
    long need = (long) Math.ceil(seconds) + grace.margin().toSeconds() + 1;
    return "warning: deployment.terminationGraceSeconds=" + grace.seconds() + " leaves " + grace.saveDeadline().toSeconds()
        + " s to save the emergency checkpoint (" + est + "): raise it to at least " + need
        + ", or a preempted pod falls back to the last committed checkpoint";
  }
}
