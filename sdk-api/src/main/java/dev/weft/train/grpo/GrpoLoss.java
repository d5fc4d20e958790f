package dev.weft.train.grpo;

import dev.weft.spec.GrpoLossType;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.ScalarTypeOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * The GRPO loss of a micro-batch of completions, TRL's formulas. Per completion token t of completion i, with
 * r = exp(log π − log π_old) the ratio to the policy that sampled the rollouts:
 * ℓ = −min(r·A_i, clip(r, 1 − ε, 1 + ε_high)·A_i) + β·(exp(log π_ref − log π) − (log π_ref − log π) − 1) (the k3
 * estimator of KL(π‖π_ref); the term only when β ≠ 0). {@link #lossSum} is this micro-batch's share of the numerator
 * and {@link Normalization#denominator} the global batch's denominator, so summing micro-batches and data-parallel
 * ranks and dividing once gives the global batch's loss for every {@link GrpoLossType}.
 *
 * @param lossSum the numerator's share of this micro-batch, with gradients to log π
 * @param tokens completion tokens here (the mask's sum)
 * @param clipped tokens whose ratio is clipped in the direction that matters (low with A &lt; 0, high with A &gt; 0)
 * @param klSum the masked sum of the per-token KL estimate (0 when β = 0 and no reference is given)
 */
public record GrpoLoss(Tensor lossSum, double tokens, double clipped, double klSum) {

  /** The loss's settings: the clip range [1 − epsilon, 1 + epsilonHigh], β, the normalisation. */
  public record Params(double epsilon, double epsilonHigh, double beta, GrpoLossType type) {}

  /**
   * @param logp the policy's per-token log-probabilities [B, T] (with gradients)
   * @param oldLogp the rollout policy's [B, T], or null (μ = 1: the policy itself, detached; the ratio is 1)
   * @param refLogp the reference's [B, T], or null when β = 0
   * @param advantages [B]
   * @param mask [B, T], 1 on completion tokens, 0 on prompt and padding
   */
  public static GrpoLoss of(Tensor logp, Tensor oldLogp, Tensor refLogp, Tensor advantages, Tensor mask, Params p) {
    Tensor old = oldLogp == null ? logp.detach() : oldLogp.detach();
    Tensor m = mask.to(logp.scalar_type());
    Tensor ratio = torch.exp(logp.sub(old));
    Tensor a = advantages.to(logp.scalar_type()).unsqueeze(1);
    Tensor clippedRatio = torch.clamp(ratio, new org.bytedeco.pytorch.ScalarOptional(new Scalar(1 - p.epsilon())),
        new org.bytedeco.pytorch.ScalarOptional(new Scalar(1 + p.epsilonHigh())));
    Tensor perToken = torch.min(ratio.mul(a), clippedRatio.mul(a)).neg();
    double klSum = 0;
    if (refLogp != null) {
      Tensor d = refLogp.detach().sub(logp);
      Tensor kl = torch.exp(d).sub(d).sub(new Scalar(1.0));
      klSum = kl.detach().mul(m).sum().item_double();
      if (p.beta() != 0) perToken = perToken.add(kl.mul(new Scalar(p.beta())));
    }
    Tensor masked = perToken.mul(m);
    Tensor numerator = p.type() == GrpoLossType.GRPO
        ? masked.sum(new long[] {1}, false, new ScalarTypeOptional()).div(m.sum(new long[] {1}, false, new ScalarTypeOptional())
            .clamp_min(new Scalar(1.0))).sum()
        : masked.sum();
    Tensor r = ratio.detach();
    Tensor low = r.lt(new Scalar(1 - p.epsilon())).logical_and(a.lt(new Scalar(0.0)).expand_as(r));
    Tensor high = r.gt(new Scalar(1 + p.epsilonHigh())).logical_and(a.gt(new Scalar(0.0)).expand_as(r));
    double clipped = low.logical_or(high).to(m.scalar_type()).mul(m).sum().item_double();
    return new GrpoLoss(numerator, m.sum().item_double(), clipped, klSum);
  }

  /** The global batch's denominator of each {@link GrpoLossType}. */
  public record Normalization(GrpoLossType type, long completions, double tokens, int maxNewTokens) {
    public double denominator() {
      return switch (type) {
        case GRPO -> completions;
        case BNPO, DAPO -> Math.max(tokens, 1);
        case DR_GRPO -> (double) completions * maxNewTokens;
      };
    }
  }
}
