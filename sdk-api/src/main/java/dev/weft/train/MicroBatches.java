package dev.weft.train;

/**
 * Runs the forward and backward passes of one optimizer step over its micro-batches, leaving the
 * reduced gradients in the optimizer's buffers. Two ways: one after the other on this rank
 * ({@link SequentialMicroBatches}), or through a pipeline schedule ({@link PipelinedMicroBatches}).
 */
interface MicroBatches {
  /**
   * @param step 1-based step
   * @param lossScale multiply each loss by this before backward (fp16 loss scaling; 1 otherwise)
   * @return the mean loss over this rank's micro-batches, or NaN where this rank computes no loss
   *     (pipeline stages before the last)
   */
  double run(long step, double lossScale);

  /** Whether the last {@link #run} computed a loss on this rank (a NaN loss then is divergence, not "no loss"). */
  default boolean holdsLoss() { return true; }
}
