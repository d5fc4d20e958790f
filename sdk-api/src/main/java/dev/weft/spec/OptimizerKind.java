package dev.weft.spec;

/** {@code train.optimizer}: the update rule. */
public enum OptimizerKind implements SpecChoice {
  ADAMW("adamw"), ADAM("adam"), SGD("sgd");

  private final String spelling;

  OptimizerKind(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The kind a validated {@code train.optimizer} names. */
  public static OptimizerKind of(String spelling) { return SpecChoice.of(OptimizerKind.class, spelling); }
}
