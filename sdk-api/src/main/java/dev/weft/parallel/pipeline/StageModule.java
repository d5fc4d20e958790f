package dev.weft.parallel.pipeline;

import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.Tensor;

/**
 * The part of the model one pipeline stage holds: one forward per chunk (virtual stage
 * {@code chunk * stages + stage}). On the first virtual stage {@code input} is the micro-batch's
 * data; elsewhere it is the previous virtual stage's output as a leaf that requires grad. The last
 * virtual stage's output goes to the executor's {@link MicroBatchLoss}. A forward must be
 * deterministic (no dropout drawn from a shared generator) when recomputation is on.
 */
@FunctionalInterface
public interface StageModule {
  Tensor forward(int chunk, Tensor input, int microBatch);

  /**
   * Bytes the autograd graph of one forward of {@code chunk} keeps for backward, besides its input
   * and output (libtorch does not let Java see saved tensors, so the module says). Only used to
   * report activation memory; 0 when unknown.
   */
  default long savedBytes(int chunk, long[] inputShape) { return 0; }

  /**
   * Every trainable parameter this stage's chunks use, when the module can list them. A split backward
   * ({@code zb-h1}, {@code zbv}) then runs each micro-batch's graph once: B computes the input gradient and
   * those of parameters outside {@link dev.weft.models.DeferredWeightGrads#linear}, W only the linears'
   * dW = dYᵀ·X. A parameter left out would get no gradient. Empty (the default): W reruns the retained graph's backward.
   */
  default Optional<List<Tensor>> trainableParameters() { return Optional.empty(); }
}
