package dev.weft.train;

/** Linear warmup to {@code lr}, then cosine decay to {@code minLr} at the last step. Pure function of the global step. */
public record LrSchedule(double lr, double minLr, int warmup, int steps) {
  /** Learning rate for 1-based step {@code step}. */
  public double at(long step) {
    if (warmup > 0 && step <= warmup) return lr * step / warmup;
    long decaySteps = Math.max(1, steps - warmup);
    double progress = Math.min(1.0, (double) (step - warmup) / decaySteps);
    return minLr + 0.5 * (lr - minLr) * (1 + Math.cos(Math.PI * progress));
  }
}
