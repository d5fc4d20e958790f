package dev.weft.cuda.kernels;

/**
 * Hyper-parameters of an Adam step. {@code decoupled}: AdamW (weight decay applied to the parameters,
 * scaled by lr) when true, classic Adam (weight decay added to the gradient) when false.
 */
public record AdamWConfig(float lr, float beta1, float beta2, float eps, float weightDecay, boolean decoupled) {
  public AdamWConfig {
    if (!(lr >= 0)) throw new IllegalArgumentException("lr must be >= 0, got " + lr);
    if (!(beta1 >= 0 && beta1 < 1)) throw new IllegalArgumentException("beta1 must be in [0, 1), got " + beta1);
    if (!(beta2 >= 0 && beta2 < 1)) throw new IllegalArgumentException("beta2 must be in [0, 1), got " + beta2);
    if (!(eps > 0)) throw new IllegalArgumentException("eps must be > 0, got " + eps);
    if (!(weightDecay >= 0)) throw new IllegalArgumentException("weight decay must be >= 0, got " + weightDecay);
  }

  /** AdamW with betas (0.9, 0.999) and eps 1e-8. */
  public static AdamWConfig adamW(float lr, float weightDecay) {
    return new AdamWConfig(lr, 0.9f, 0.999f, 1e-8f, weightDecay, true);
  }
}
