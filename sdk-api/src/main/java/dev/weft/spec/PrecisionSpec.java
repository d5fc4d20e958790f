package dev.weft.spec;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * Compute and communication precision. In YAML {@code precision: bf16} is shorthand for
 * {@code precision: {dtype: bf16}}. {@code reduceDtype} is the gradient-communication type; loss
 * scaling applies to fp16 only; {@code maxConsecutiveSkips} bounds the steps the fp16 scaler may skip in a row
 * for overflow before the run counts as diverged.
 */
public record PrecisionSpec(String dtype, String reduceDtype, double initialScale, int growthInterval,
                            double backoff, int maxConsecutiveSkips) {
  @JsonIgnore
  public boolean isLowPrecision() { return !PrecisionDtype.FP32.spelling().equals(dtype); }
}
