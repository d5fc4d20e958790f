package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.Distributed;
import dev.weft.data.Batches;
import dev.weft.models.LanguageModel;
import dev.weft.models.StagedModel;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import java.util.Map;

/**
 * Runs the forward and backward passes of one optimizer step over its micro-batches, leaving the
 * reduced gradients in the optimizer's buffers. Three ways: one after the other on this rank
 * ({@link SequentialMicroBatches}), through a pipeline schedule ({@link PipelinedMicroBatches}), DPO's pairs
 * through the reference and the policy ({@link DpoMicroBatches}), or GRPO's rollouts and updates ({@link GrpoMicroBatches}). Each also says what the step loop needs of its
 * objective: the loss normaliser, the objective's own metrics, and whether a step measures activations.
 */
interface MicroBatches {
  /** The run's way for {@code spec}: DPO's pairs, GRPO's rollouts, else pipelined (pipeline stages or recomputation) or sequential. */
  static MicroBatches of(TrainingSpec spec, BuiltModel built, ShardedOptimizer opt, StepData data, Distributed dist) {
    if (spec.train().dpoObjective()) return DpoMicroBatches.of(spec, built, opt, dist);
    if (spec.train().grpoObjective()) return GrpoMicroBatches.of(spec, built, opt, dist);
    return forLoss(spec, built.model(), opt, data, dist);
  }

  /** The language-model loss's way: sequential, or pipelined for pipeline stages and recomputation. */
  static MicroBatches forLoss(TrainingSpec spec, LanguageModel model, ShardedOptimizer opt, StepData data, Distributed dist) {
    var p = spec.parallel();
    boolean layersCheckpointed = model instanceof dev.weft.models.decoder.Decoder d && d.checkpointsLayers();
    if (p.pp() == 1 && (!spec.train().recompute() || layersCheckpointed)) {
      return new SequentialMicroBatches(model, opt, data, spec.precision().dtype()); // recompute: per layer, in the model
    }
    if (!(model instanceof StagedModel staged)) {
      throw new SpecException(p.pp() > 1 ? "parallel.pp" : "train.recompute", "model.factory="
          + spec.model().factory() + " builds a model that does not implement dev.weft.models.StagedModel;"
          + " implement it to use pipeline stages or recomputation");
    }
    int seqPerRank = spec.data().seqLen() / (p.sequenceParallel() ? p.tp() : 1) / p.cp();
    return new PipelinedMicroBatches(staged, opt, data, spec.precision().dtype(), p.pp() > 1 ? p.schedule() : "1f1b", dist.pp(),
        spec.train().recompute(), seqPerRank);
  }

  /**
   * The step's loss normaliser: by default the one count of the global batch's targets (over {@code dp}, each sample
   * split over {@code cp} ranks).
   */
  default LossNormalizer normalizer(List<Batches.Batch> host, Communicator dp, int cp) {
    return LossNormalizer.of(host, dp).contextParallel(cp);
  }

  /** The loop's step number (1-based), before its {@link #run} (GRPO: which rollout batch the step uses). */
  default void beginStep(long step) {}

  /** Arms a measurement of the next {@link #run}'s activations over {@code world} (where this way measures them). */
  default void measureActivations(Communicator world) {}

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

  /** The objective's own metrics of the last {@link #run}, reduced over {@code dp} where they need it (DPO: rewards). */
  default Map<String, Double> objectiveMetrics(Communicator dp) { return Map.of(); }

  /** {@code metrics} with what the last {@link #run} measured of itself (activation_mib), added last. */
  default Map<String, Double> withMeasured(Map<String, Double> metrics) { return metrics; }
}
