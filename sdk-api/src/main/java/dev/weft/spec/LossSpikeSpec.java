package dev.weft.spec;

/**
 * {@code train.lossSpike}: the loss-spike guard, off unless {@code factor} is set. A step whose loss is above
 * {@code factor} × the median loss of the last {@code window} accepted steps (from the second step on) is a spike: {@code stop} ends
 * the run as diverged (exit 3); {@code skip} leaves the step's update out (no optimizer step; the data moves on) and
 * stops as diverged only when {@code window} steps in a row are spikes; {@code rollback} goes back to the last checkpoint
 * and passes over the data of the steps from it to the spike (it needs {@code checkpoint.every}), and stops as diverged
 * when the same checkpoint is rolled back to more than {@link #MAX_ROLLBACKS} times.
 */
public record LossSpikeSpec(double factor, int window, String action) {
  public LossSpikeSpec {
    action = action == null ? "stop" : action;
  }

  /** Rollbacks to one checkpoint before a spike after it stops the run: the data moved on each time and it still spiked. */
  public static final int MAX_ROLLBACKS = 3;

  public static LossSpikeSpec off() { return new LossSpikeSpec(0, 20, "stop"); }

  public boolean enabled() { return factor > 0; }

  /** Whether a spike leaves the step out rather than stopping the run. */
  public boolean skips() { return "skip".equals(action); }

  /** Whether a spike rolls the run back to its last checkpoint. */
  public boolean rollsBack() { return "rollback".equals(action); }

  /** The field checks of {@code train.lossSpike}. */
  static void validate(LossSpikeSpec s) {
    SpecValidator.require(s.factor() == 0 || s.factor() > 1, "train.lossSpike.factor", s.factor()
        + " must be 0 (off) or above 1 (a spike is a loss above factor × the recent median; 3 to 10 is usual)");
    SpecValidator.require(s.window() >= 3 && s.window() <= 100_000, "train.lossSpike.window", s.window()
        + " must be 3 to 100000 steps (the median of their losses is the baseline)");
    SpecValidator.require("stop".equals(s.action()) || s.skips() || s.rollsBack(), "train.lossSpike.action",
        "'" + s.action() + "' is not an action; use stop, skip or rollback");
  }

  /** {@code rollback} goes back to a checkpoint, so the run must save some. */
  static void validateWith(LossSpikeSpec s, CheckpointSpec c) {
    SpecValidator.require(!s.enabled() || !s.rollsBack() || c.every() > 0, "train.lossSpike.action", "rollback goes back to the"
        + " last checkpoint, and checkpoint.every is 0; set checkpoint.every (e.g. 50) or use action stop or skip");
  }
}
