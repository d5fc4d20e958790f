package dev.weft.spec;

/**
 * {@code train.objective}: what a step minimises. {@code lm}: the cross-entropy of the targets (pre-training, SFT);
 * {@code dpo}: Direct Preference Optimization over pairs of a chosen and a rejected answer ({@code train.dpo}).
 */
public enum TrainObjective implements SpecChoice {
  LM("lm"), DPO("dpo");

  private final String spelling;

  TrainObjective(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The objective a validated {@code train.objective} names. */
  public static TrainObjective of(String spelling) { return SpecChoice.of(TrainObjective.class, spelling); }
}
