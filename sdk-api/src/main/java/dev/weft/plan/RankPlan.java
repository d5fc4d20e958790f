package dev.weft.plan;

/**
 * What one rank is expected to hold and send per step, in bytes. {@code parameters},
 * {@code gradients} and {@code optimizerState} are what {@code summary.json}'s {@code memory}
 * measures; {@code activations} is the peak of tensors saved for backward; {@code runtime} the fixed
 * cost of a worker JVM with libtorch. Communication is what this rank sends per optimizer step in each
 * dimension (ring algorithms); under HSDP {@code dpBytes} is the shard group's and {@code dpReplicateBytes} the
 * all-reduce of the gradient shard across the replicate group (zero without HSDP); {@code cpBytes} is context
 * parallelism's: K/V blocks around the ring (and their gradients back), and the sum of the owned gradients over cp.
 * {@code trainableCount} is {@code parameterCount} but under LoRA, where only the adapters train ({@code parameters}
 * then counts the frozen base too).
 */
public record RankPlan(int rank, int dp, int tp, int pp, double parameterCount, double trainableCount, double parameters, double gradients,
                       double optimizerState, double activations, double runtime, double dpBytes, double tpBytes, double ppBytes,
                       double dpReplicateBytes, double pendingGradients, int cp, double cpBytes) {
  /**
   * {@code pendingGradients}: autograd's own gradients still alive beside the optimizer's flat gradient buffer. At dp = 1
   * under ZeRO-2/3 no hook copies a bucket as it fills, so every one of them lives until backward ends (the whole
   * model's again); at ZeRO-0/1 they are views of the buffer ({@link dev.weft.spec.ParallelSpec#gradientsInFlatBuffer}).
   */
  public double total() { return parameters + gradients + pendingGradients + optimizerState + activations + runtime; }
  public double communication() { return dpBytes + tpBytes + ppBytes + dpReplicateBytes + cpBytes; }
}
