package dev.weft.spec;

/**
 * {@code train.grpo.lossType}: how the per-token clipped losses of a batch become one number, as TRL's
 * {@code loss_type} names them. {@code grpo}: each completion's mean over its tokens, then the mean over completions
 * (Shao et al., 2024; biased towards short answers); {@code bnpo} and {@code dapo}: the sum over every completion token
 * of the global batch divided by their count (DAPO's token-level loss; Weft normalises both by the whole global batch,
 * which is TRL's {@code bnpo} on one process with one micro-batch); {@code dr_grpo}: the sum divided by completions ×
 * {@code maxNewTokens}, a constant (Dr. GRPO, Liu et al., 2025).
 */
public enum GrpoLossType implements SpecChoice {
  GRPO("grpo"), BNPO("bnpo"), DAPO("dapo"), DR_GRPO("dr_grpo");

  private final String spelling;

  GrpoLossType(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The type a validated {@code train.grpo.lossType} names. */
  public static GrpoLossType of(String spelling) { return SpecChoice.of(GrpoLossType.class, spelling); }
}
