package dev.weft.plan;

/**
 * What one rank is expected to hold and send per step, in bytes. {@code parameters},
 * {@code gradients} and {@code optimizerState} are what {@code summary.json}'s {@code memory}
 * measures; {@code activations} is the peak of tensors saved for backward; {@code runtime} the fixed
 * cost of a worker JVM with libtorch. Communication is what this rank sends per optimizer step in each
 * dimension (ring algorithms); {@code cpBytes} is context parallelism's: K/V blocks around the ring (and their
 * gradients back), and the sum of the owned gradients over cp.
 */
public record RankPlan(int rank, int dp, int tp, int pp, double parameterCount, double parameters, double gradients,
                       double optimizerState, double activations, double runtime, double dpBytes, double tpBytes, double ppBytes,
                       int cp, double cpBytes) {
  /** A rank without context parallelism. */
  public RankPlan(int rank, int dp, int tp, int pp, double parameterCount, double parameters, double gradients,
                  double optimizerState, double activations, double runtime, double dpBytes, double tpBytes, double ppBytes) {
    this(rank, dp, tp, pp, parameterCount, parameters, gradients, optimizerState, activations, runtime, dpBytes, tpBytes, ppBytes, 1, 0);
  }

  public double total() { return parameters + gradients + optimizerState + activations + runtime; }
  public double communication() { return dpBytes + tpBytes + ppBytes + cpBytes; }
}
