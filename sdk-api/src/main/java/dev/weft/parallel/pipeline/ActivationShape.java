package dev.weft.parallel.pipeline;

/**
 * Shape of the activation entering a virtual stage (and of the gradient flowing back out of it),
 * so receivers can allocate buffers before the data arrives. For the GPT: [microBatchSize, seqLen, hidden].
 */
@FunctionalInterface
public interface ActivationShape {
  long[] shape(int microBatch, int virtualStage);

  static ActivationShape fixed(long... shape) {
    long[] copy = shape.clone();
    return (mb, vs) -> copy.clone();
  }
}
