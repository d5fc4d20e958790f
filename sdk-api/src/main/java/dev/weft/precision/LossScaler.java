package dev.weft.precision;

/**
 * Dynamic loss scaling for fp16: multiply the loss before backward; when any rank sees a non-finite
 * gradient every rank skips the step and multiplies the scale by {@code backoff}; after
 * {@code growthInterval} good steps in a row the scale doubles. Scale 1 and never skipping for
 * bf16/fp32. Plain state: (scale, goodSteps).
 */
public final class LossScaler {
  private final boolean enabled;
  private final int growthInterval;
  private final double backoff;
  private double scale;
  private int goodSteps;

  public LossScaler(boolean enabled, double initialScale, int growthInterval, double backoff) {
    this.enabled = enabled;
    this.growthInterval = growthInterval;
    this.backoff = backoff;
    this.scale = enabled ? initialScale : 1.0;
  }

  public double scale() { return scale; }

  /**
   * Records the outcome of a step whose global gradient norm was {@code gradNorm}; returns true when
   * the step must be skipped. Every rank passes the same (all-reduced) norm, so all agree.
   */
  public boolean update(double gradNorm) {
    if (!enabled) return false;
    if (!Double.isFinite(gradNorm)) {
      scale *= backoff;
      goodSteps = 0;
      return true;
    }
    if (++goodSteps >= growthInterval) {
      scale *= 2;
      goodSteps = 0;
    }
    return false;
  }

  public int goodSteps() { return goodSteps; }

  public void restore(double scale, int goodSteps) {
    this.scale = scale;
    this.goodSteps = goodSteps;
  }
}
