package dev.weft.train;

import dev.weft.error.WeftException;

/** The loss stopped being a finite number. */
public final class TrainingDivergedException extends WeftException {
  public TrainingDivergedException(String message) { super(message); }
}
