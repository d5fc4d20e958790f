package dev.weft.spec;

/**
 * {@code train.dpo}: Direct Preference Optimization (Rafailov et al., 2023). {@code beta} weighs the implicit reward
 * β · (log π(y|x) − log π_ref(y|x)) of each answer; the loss of a pair is −log σ(reward_chosen − reward_rejected).
 * Used when {@code train.objective} is {@code dpo}.
 */
public record DpoSpec(double beta) {
  /** TRL's default β. */
  public static DpoSpec defaults() { return new DpoSpec(0.1); }

  /** The field checks of {@code train.dpo}. */
  static void validate(DpoSpec d) {
    SpecValidator.require(d.beta() > 0 && Double.isFinite(d.beta()), "train.dpo.beta", d.beta()
        + " must be a positive number (0.1 is usual)");
  }
}
