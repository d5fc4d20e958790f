package dev.weft.spec;

/**
 * {@code train.dpo.loss}: a pair's loss from h = β · ((log π_c − log π_ref,c) − (log π_r − log π_ref,r)), as TRL's
 * {@code loss_type} defines it. {@code sigmoid}: −(1 − ε) log σ(h) − ε log σ(−h) (DPO; ε = {@code labelSmoothing}, cDPO);
 * {@code robust}: (−(1 − ε) log σ(h) + ε log σ(−h)) / (1 − 2ε); {@code hinge}: max(0, 1 − h) (SLiC);
 * {@code ipo}: (h/β − 1/(2β))², its log-probabilities averaged over each answer's target tokens.
 */
public enum DpoLossKind implements SpecChoice {
  SIGMOID("sigmoid"), IPO("ipo"), HINGE("hinge"), ROBUST("robust");

  private final String spelling;

  DpoLossKind(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The kind a validated {@code train.dpo.loss} names. */
  public static DpoLossKind of(String spelling) { return SpecChoice.of(DpoLossKind.class, spelling); }
}
