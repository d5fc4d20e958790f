package dev.weft.spec;

/**
 * {@code train.objective}: what a step minimises. {@code lm}: the cross-entropy of the targets (pre-training, SFT);
 * {@code dpo}: Direct Preference Optimization over pairs of a chosen and a rejected answer ({@code train.dpo});
 * {@code grpo}: Group Relative Policy Optimization over completions the policy samples, scored by reward functions
 * ({@code train.grpo}).
 */
public enum TrainObjective implements SpecChoice {
  LM("lm"), DPO("dpo"), GRPO("grpo");

  private final String spelling;

  TrainObjective(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The objective a validated {@code train.objective} names. */
  public static TrainObjective of(String spelling) { return SpecChoice.of(TrainObjective.class, spelling); }
}
