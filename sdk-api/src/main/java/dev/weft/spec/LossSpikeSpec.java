package dev.weft.spec;

/**
 * {@code train.lossSpike}: the loss-spike guard, off unless {@code factor} is set. A step whose loss is above
 * {@code factor} × the median loss of the last {@code window} accepted steps (from the second step on) is a spike: {@code stop} ends
 * the run as diverged (exit 3); {@code skip} leaves the step's update out (no optimizer step; the data moves on) and
 * stops as diverged only when {@code window} steps in a row are spikes.
 */
public record LossSpikeSpec(double factor, int window, String action) {
  public LossSpikeSpec {
    action = action == null ? "stop" : action;
  }

  public static LossSpikeSpec off() { return new LossSpikeSpec(0, 20, "stop"); }

  public boolean enabled() { return factor > 0; }

  /** Whether a spike leaves the step out rather than stopping the run. */
  public boolean skips() { return "skip".equals(action); }

  /** The field checks of {@code train.lossSpike}. */
  static void validate(LossSpikeSpec s) {
    SpecValidator.require(s.factor() == 0 || s.factor() > 1, "train.lossSpike.factor", s.factor()
        + " must be 0 (off) or above 1 (a spike is a loss above factor × the recent median; 3 to 10 is usual)");
    SpecValidator.require(s.window() >= 3 && s.window() <= 100_000, "train.lossSpike.window", s.window()
        + " must be 3 to 100000 steps (the median of their losses is the baseline)");
    SpecValidator.require(!"rollback".equals(s.action()), "train.lossSpike.action",
        "rollback is not supported yet; use stop (exit 3, status diverged) or skip (the step's update left out)");
    SpecValidator.require("stop".equals(s.action()) || "skip".equals(s.action()), "train.lossSpike.action",
        "'" + s.action() + "' is not an action; use stop or skip");
  }
}
