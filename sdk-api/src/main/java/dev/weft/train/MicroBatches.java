package dev.weft.train;

import dev.weft.data.Batches;
import java.util.List;

/**
 * Runs the forward and backward passes of one optimizer step over its micro-batches, leaving the
 * reduced gradients in the optimizer's buffers. Two ways: one after the other on this rank
 * ({@link SequentialMicroBatches}), or through a pipeline schedule ({@link PipelinedMicroBatches}).
 */
interface MicroBatches {
  /**
   * @param batches this rank's micro-batches of the step, on its device
   * @param norm the global batch's count of targets: each micro-batch's summed loss is weighted by {@link LossNormalizer#weight}
   * @param lossScale multiply each loss by this before backward (fp16 loss scaling; 1 otherwise)
   * @return this rank's part of the step's loss ({@link LossNormalizer#reported}), or NaN where this rank computes
   *     no loss (pipeline stages before the last)
   */
  double run(List<Batches.Batch> batches, LossNormalizer norm, double lossScale);

  /** Whether the last {@link #run} computed a loss on this rank (a NaN loss then is divergence, not "no loss"). */
  default boolean holdsLoss() { return true; }
}
