package dev.weft.train;

import dev.weft.error.WeftException;

/**
 * The loss or the gradient norm stopped being a finite number on some rank; {@code summary.json} says
 * {@code status: diverged} with the step and cause. Worker processes exit with {@link #EXIT_CODE}, and so do
 * {@code weft train} and an elastic agent, which never restarts such a run.
 */
public final class TrainingDivergedException extends WeftException {
  /** The exit code of a diverged run, distinct from failures (1) and user mistakes (2). */
  public static final int EXIT_CODE = 3;

  public TrainingDivergedException(String message) { super(message); }
}
