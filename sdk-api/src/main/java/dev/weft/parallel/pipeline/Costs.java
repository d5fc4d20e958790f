package dev.weft.parallel.pipeline;

/**
 * Time units the simulator charges per chunk forward, per chunk input-gradient and weight-gradient
 * part of a backward (a whole backward costs both), and per transfer (latency).
 */
public record Costs(double forward, double inputGradient, double weightGradient, double transfer) {
  /** Backward costs twice a forward (two matmuls per forward one), split evenly into B and W; transfers are free. */
  public static final Costs UNIT = new Costs(1, 2, 0);

  public Costs {
    if (!(forward >= 0 && inputGradient >= 0 && weightGradient >= 0 && transfer >= 0)) {
      throw new IllegalArgumentException("costs must be ≥ 0");
    }
  }

  /** A whole backward of {@code backward}, half of it the input gradient and half the weight gradient. */
  public Costs(double forward, double backward, double transfer) { this(forward, backward / 2, backward / 2, transfer); }

  public double backward() { return inputGradient + weightGradient; }

  /** What {@code kind} costs when computed. */
  double of(Action.Kind kind) {
    return switch (kind) {
      case FORWARD -> forward;
      case BACKWARD -> backward();
      case BACKWARD_INPUT -> inputGradient;
      case BACKWARD_WEIGHT -> weightGradient;
      default -> 0;
    };
  }
}
