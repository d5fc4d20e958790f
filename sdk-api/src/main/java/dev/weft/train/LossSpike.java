package dev.weft.train;

import dev.weft.spec.LossSpikeSpec;
import dev.weft.util.Median;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;

/**
 * The loss-spike guard ({@code train.lossSpike}) of one rank: every rank sees the same reduced loss, so every rank
 * decides alike with no collective of its own. The baseline is the median of the last {@code window} accepted losses
 * (a spike never enters it), from the second step on: a blow-up often starts at step 2, and early losses fall, not rise.
 */
final class LossSpike {
  /** What a step's loss means for it. */
  enum Verdict { ACCEPT, SKIP, ROLLBACK, STOP }

  private final LossSpikeSpec spec;
  private final Deque<Double> recent = new ArrayDeque<>();
  private int spikesInARow;
  private double lastMedian = Double.NaN;

  LossSpike(LossSpikeSpec spec) { this.spec = spec; }

  /** The verdict on a finite loss (a non-finite one is {@link Divergence}'s). */
  Verdict check(double loss) {
    if (!spec.enabled() || !Double.isFinite(loss)) return Verdict.ACCEPT;
    if (!recent.isEmpty()) {
      lastMedian = Median.of(new ArrayList<>(recent));
      if (loss > spec.factor() * lastMedian) {
        spikesInARow++;
        if (spec.rollsBack()) return Verdict.ROLLBACK; // the loop decides whether a checkpoint is left to go back to
        return spec.skips() && spikesInARow < spec.window() ? Verdict.SKIP : Verdict.STOP;
      }
    }
    spikesInARow = 0;
    recent.addLast(loss);
    if (recent.size() > spec.window()) recent.removeFirst();
    return Verdict.ACCEPT;
  }

  /** Why the last verdict was a spike, for the divergence message and the log. */
  String cause(double loss) {
    return "loss " + loss + " is above train.lossSpike.factor=" + spec.factor() + " × " + lastMedian + ", the median of the last "
        + recent.size() + " steps" + (spikesInARow > 1 ? " (" + spikesInARow + " spikes in a row)" : "");
  }
}
