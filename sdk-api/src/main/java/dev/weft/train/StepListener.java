package dev.weft.train;

import dev.weft.metrics.StepMetrics;

/** Called on rank 0 after every step (progress display, in-process callers). */
@FunctionalInterface
public interface StepListener {
  void onStep(StepMetrics m, long totalSteps);

  StepListener NONE = (m, n) -> {};
}
