package dev.weft.train;

import dev.weft.spec.TrainSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * train.earlyStopping: the run ends once the held-out loss has not improved on its best by more than minDelta for
 * patience evaluations. Every rank holds the same reduced eval loss, so all stop alike.
 */
final class EarlyStopping {
  private static final Logger log = LoggerFactory.getLogger(EarlyStopping.class);

  private final TrainSpec t;
  private final boolean leader;
  private double best = Double.POSITIVE_INFINITY;
  private int withoutGain;

  EarlyStopping(TrainSpec t, boolean leader) {
    this.t = t;
    this.leader = leader;
  }

  /** A resumed run: the best held-out loss before the resume is the one to improve on. */
  void resumeWith(double bestBefore) { best = bestBefore; }

  /** Whether the run stops after {@code step}, whose held-out loss is {@code evalLoss} (null: not evaluated). */
  boolean stopsAfter(long step, Double evalLoss) {
    if (evalLoss == null || !t.earlyStopping().enabled()) return false;
    if (evalLoss < best - t.earlyStopping().minDelta()) {
      best = evalLoss;
      withoutGain = 0;
      return false;
    }
    if (++withoutGain < t.earlyStopping().patience() || step >= t.steps()) return false;
    if (leader) log.info("early stopping at step {}: eval_loss {} has not improved on its best {} by more than {} for {}"
        + " evaluations (train.earlyStopping)", step, evalLoss, best, t.earlyStopping().minDelta(), withoutGain);
    return true;
  }
}
