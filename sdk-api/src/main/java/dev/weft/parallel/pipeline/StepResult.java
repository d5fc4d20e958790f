package dev.weft.parallel.pipeline;

import java.util.List;

/**
 * One stage's outcome of a step. {@code losses} holds each micro-batch's unscaled loss on the stage
 * that holds the last virtual stage and is empty elsewhere. {@code peakKeptBytes}: the most bytes
 * of activations held for backward at once (inputs, plus outputs and the module's declared saved
 * bytes when not recomputing).
 */
public record StepResult(int stage, List<Double> losses, Timeline timeline, long peakKeptBytes) {
  public StepResult {
    losses = List.copyOf(losses);
  }

  /** Mean loss over micro-batches, or NaN on stages without the loss. */
  public double meanLoss() { return losses.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN); }
}
