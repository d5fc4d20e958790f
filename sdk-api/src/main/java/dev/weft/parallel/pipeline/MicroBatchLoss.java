package dev.weft.parallel.pipeline;

import org.bytedeco.pytorch.Tensor;

/** The loss hook of the last virtual stage: a scalar loss of one micro-batch from its output. */
@FunctionalInterface
public interface MicroBatchLoss {
  /** For a last stage whose module already returns the loss. */
  MicroBatchLoss IDENTITY = (output, microBatch) -> output;

  Tensor loss(Tensor output, int microBatch);
}
