package dev.weft.train.grpo;

/**
 * Group-relative advantages: each completion's reward minus the mean reward of its group (the G completions of one
 * prompt), divided by the group's standard deviation (Bessel-corrected, as {@code torch.std}) plus 1e-4 when
 * {@code scaleByStd} (GRPO), not divided (Dr. GRPO). Rewards come group by group: completions [g·G, (g+1)·G) share a prompt.
 */
public final class Advantages {
  /** What keeps a group of equal rewards from dividing by zero (TRL's constant). */
  public static final double STD_EPS = 1e-4;

  private Advantages() {}

  public static double[] of(double[] rewards, int groupSize, boolean scaleByStd) {
    if (groupSize < 1 || rewards.length % groupSize != 0) {
      throw new IllegalArgumentException(rewards.length + " rewards are not whole groups of " + groupSize);
    }
    double[] out = new double[rewards.length];
    for (int g = 0; g < rewards.length; g += groupSize) {
      double mean = 0;
      for (int i = g; i < g + groupSize; i++) mean += rewards[i];
      mean /= groupSize;
      double ss = 0;
      for (int i = g; i < g + groupSize; i++) ss += (rewards[i] - mean) * (rewards[i] - mean);
      double std = groupSize > 1 ? Math.sqrt(ss / (groupSize - 1)) : Double.NaN; // torch.std of one value is NaN
      for (int i = g; i < g + groupSize; i++) out[i] = scaleByStd ? (rewards[i] - mean) / (std + STD_EPS) : rewards[i] - mean;
    }
    return out;
  }
}
