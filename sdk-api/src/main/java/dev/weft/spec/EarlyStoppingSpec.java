package dev.weft.spec;

/**
 * {@code train.earlyStopping}: off unless {@code patience} is set. The run stops (completed, at that step) when the
 * held-out loss ({@code train.evalEvery}) has not improved on its best by more than {@code minDelta} for
 * {@code patience} evaluations in a row.
 */
public record EarlyStoppingSpec(int patience, double minDelta) {
  public static EarlyStoppingSpec off() { return new EarlyStoppingSpec(0, 0); }

  public boolean enabled() { return patience > 0; }

  /** The field checks of {@code train.earlyStopping}. */
  static void validate(EarlyStoppingSpec e, int evalEvery) {
    SpecValidator.require(e.patience() >= 0, "train.earlyStopping.patience", e.patience()
        + " must be 0 (off) or a number of evaluations without improvement");
    SpecValidator.require(e.minDelta() >= 0, "train.earlyStopping.minDelta", e.minDelta() + " must be 0 or positive");
    SpecValidator.require(!e.enabled() || evalEvery > 0, "train.earlyStopping.patience",
        "needs a held-out loss to watch; set train.evalEvery (and data.eval or data.validation)");
  }
}
