package dev.weft.train;

import dev.weft.spec.LrScheduleKind;
import dev.weft.spec.TrainSpec;

/**
 * Linear warm-up from 0 to {@code lr} over {@code warmup} steps, then the {@code kind}'s shape down to {@code minLr} at
 * step {@code steps} ({@code wsd}: {@code lr} until the last {@code decay} steps); past {@code steps} (a resumed run
 * that goes on) the final rate stays. Pure function of the global step.
 */
public record LrSchedule(LrScheduleKind kind, double lr, double minLr, int warmup, int steps, int decay) {

  /** The schedule a spec asks for over {@code steps} steps (the spec's own, or those a resumed run started with). */
  public static LrSchedule of(TrainSpec t, int steps) {
    int decay = (int) Math.max(1, Math.ceil(t.decayRatio() * steps));
    return new LrSchedule(LrScheduleKind.of(t.schedule()), t.lr(), t.finalLr(), t.warmupSteps(steps), steps, decay);
  }

  /** Learning rate for 1-based step {@code step}. */
  public double at(long step) {
    if (warmup > 0 && step <= warmup) return lr * step / warmup;
    return switch (kind) {
      case CONSTANT -> lr;
      case LINEAR -> lr - (lr - minLr) * progress(step, warmup, steps - warmup);
      case COSINE -> minLr + 0.5 * (lr - minLr) * (1 + Math.cos(Math.PI * progress(step, warmup, steps - warmup)));
      case WSD -> {
        long decayStart = Math.max(warmup, steps - decay);
        yield lr - (lr - minLr) * progress(step, decayStart, steps - decayStart);
      }
    };
  }

  /** How far {@code step} is into a stretch of {@code length} steps after {@code start}, in [0, 1]. */
  private static double progress(long step, long start, long length) {
    return Math.max(0, Math.min(1.0, (double) (step - start) / Math.max(1, length)));
  }
}
