package dev.weft.spec;

/**
 * {@code train.dpo}: Direct Preference Optimization (Rafailov et al., 2023). {@code beta} weighs the implicit reward
 * β · (log π(y|x) − log π_ref(y|x)) of each answer; {@code loss} is the pair's loss of their difference
 * ({@link DpoLossKind}, TRL's {@code loss_type}), {@code labelSmoothing} its ε (sigmoid and robust);
 * {@code reference} the reference policy: empty, the policy as training starts (the base, with
 * {@code train.lora.adapter} when one is given); else a Hugging Face model directory or a PEFT adapter directory
 * (over {@code model.pretrained}). Used when {@code train.objective} is {@code dpo}.
 */
public record DpoSpec(double beta, String loss, double labelSmoothing, String reference) {
  public DpoSpec {
    loss = loss == null ? DpoLossKind.SIGMOID.spelling() : loss;
    reference = reference == null ? "" : reference;
  }

  /** TRL's defaults: β 0.1, the sigmoid loss, no smoothing, the starting policy as reference. */
  public static DpoSpec defaults() { return new DpoSpec(0.1, DpoLossKind.SIGMOID.spelling(), 0, ""); }

  /** Whether a reference other than the starting policy is named. */
  public boolean hasReference() { return !reference.isBlank(); }

  /** The field checks of {@code train.dpo}. */
  static void validate(DpoSpec d) {
    SpecValidator.require(d.beta() > 0 && Double.isFinite(d.beta()), "train.dpo.beta", d.beta()
        + " must be a positive number (0.1 is usual)");
    SpecValidator.require(SpecChoice.find(DpoLossKind.class, d.loss()).isPresent(), "train.dpo.loss",
        "'" + d.loss() + "' is not a DPO loss; use one of " + SpecChoice.spellings(DpoLossKind.class));
    SpecValidator.require(d.labelSmoothing() >= 0 && d.labelSmoothing() < 0.5, "train.dpo.labelSmoothing", d.labelSmoothing()
        + " must be at least 0 and below 0.5 (the probability that a pair's labels are flipped)");
    DpoLossKind k = DpoLossKind.of(d.loss());
    SpecValidator.require(d.labelSmoothing() == 0 || k == DpoLossKind.SIGMOID || k == DpoLossKind.ROBUST,
        "train.dpo.labelSmoothing", "applies to train.dpo.loss sigmoid or robust, not " + d.loss() + "; remove it or change the loss");
  }
}
