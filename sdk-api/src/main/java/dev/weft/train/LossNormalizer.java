package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.data.Batches;
import dev.weft.models.Targets;
import dev.weft.util.Tensors;
import java.util.List;
import org.bytedeco.pytorch.Tensor;

/**
 * The one division of a step's loss: the cross-entropy summed over every target of the global batch (all
 * micro-batches, all data-parallel ranks) over the global count of targets — not a mean of per-micro-batch means,
 * which would weigh a target of a mostly masked micro-batch more. Each micro-batch's summed loss is multiplied by
 * {@link #weight} before its backward; the data-parallel reduction then averages over the {@code dp} ranks, which
 * the weight's factor {@code dp} undoes.
 *
 * @param globalTargets targets of the step's global batch
 * @param dp data-parallel ranks the gradients are averaged over
 * @param cp context-parallel ranks, each holding part of every sample's loss (their gradients are summed)
 */
record LossNormalizer(long globalTargets, int dp, int cp) {
  LossNormalizer(long globalTargets, int dp) { this(globalTargets, dp, 1); }

  /** Counts the targets of this rank's micro-batches (host tensors: no device read-back) and sums them over {@code dp}, once. */
  static LossNormalizer of(List<Batches.Batch> hostBatches, Communicator dp) {
    long local = 0;
    for (Batches.Batch b : hostBatches) local += Targets.count(b.targets());
    Tensor n = Tensors.ofLongs(local);
    if (dp.size() > 1) dp.allReduce(n, ReduceOp.SUM);
    return new LossNormalizer(Tensors.toLongs(n)[0], dp.size());
  }

  /** A global batch without a single target: the step has nothing to learn from (and its mean would be NaN). */
  boolean empty() { return globalTargets == 0; }

  /** What multiplies a micro-batch's summed loss before its backward (times the fp16 loss scale). */
  double weight() { return (double) dp / globalTargets; }

  /**
   * This rank's part of the step's loss, such that the mean over the data- and context-parallel ranks is the
   * global mean (a cp rank's sum covers 1/cp of its samples' tokens).
   */
  double reported(double localSum) { return localSum * weight() * cp; }

  /** The same count for a run whose samples are split over {@code ranks} context-parallel ranks. */
  LossNormalizer contextParallel(int ranks) { return new LossNormalizer(globalTargets, dp, ranks); }
}
