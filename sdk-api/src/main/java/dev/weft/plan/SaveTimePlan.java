package dev.weft.plan;

import dev.weft.preempt.GracePeriod;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import java.util.Locale;

/**
 * Whether an emergency checkpoint fits the grace period between SIGTERM and SIGKILL: the checkpoint's bytes (fp32
 * weights once per model slice, the optimizer state once whatever the ZeRO sharding) over a conservative write
 * bandwidth, against the workers' save deadline ({@link GracePeriod#saveDeadline()}).
 */
public record SaveTimePlan(double checkpointBytes, double seconds, GracePeriod grace) {
  /** Conservative bytes per second for writing a checkpoint (network storage or an object store, one run). */
  public static final double WRITE_BYTES_PER_S = 100e6;

  public static SaveTimePlan of(TrainingSpec spec, List<RankPlan> ranks, GracePeriod grace) {
    double bytes = 0;
    boolean sharded = spec.parallel().zero() >= 1;
    for (RankPlan r : ranks) {
      int dpRank = r.rank() / (r.tp() * r.pp());
      if (dpRank == 0) bytes += r.parameterCount() * 4 + r.optimizerState() * (sharded ? r.dp() : 1);
    }
    return new SaveTimePlan(bytes, bytes / WRITE_BYTES_PER_S, grace);
  }

  /** Whether the estimated save ends before the workers' deadline. */
  public boolean fits() { return seconds <= grace.saveDeadline().toSeconds(); }

  /** The plan's line: the estimate, and a warning with what to change when it does not fit. */
  public String line() {
    String est = String.format(Locale.ROOT, "%s at a conservative %.0f MB/s ≈ %.0f s", Bytes.human(checkpointBytes),
        WRITE_BYTES_PER_S / 1e6, Math.ceil(seconds));
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
