package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.data.Batches;
import dev.weft.data.DistributedSampler;
import dev.weft.data.TokenSource;
import dev.weft.metrics.StepMetrics;
import dev.weft.models.Parameters.Param;
import dev.weft.parallel.context.Zigzag;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.parallel.pipeline.StageTies;
import dev.weft.precision.LossScaler;
import dev.weft.spec.TrainSpec;
import dev.weft.spec.TrainingSpec;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.javacpp.PointerScope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One optimizer step of a rank, phase by phase ({@link #run}): the step's batches, its micro-batches (forward under
 * autocast, backward of the scaled loss; data-parallel buckets reduce while backward runs), the reductions the
 * buckets leave (over cp, tp and tied pipeline stages), the loss over the ranks, then clip and step, or skip. Every
 * step runs inside its own PointerScope, so the native memory of its temporaries is released at its end.
 */
final class TrainStep {
  private static final Logger log = LoggerFactory.getLogger(TrainStep.class);

  private final TrainSpec t;
  private final Distributed dist;
  private final BuiltModel built;
  private final ShardedOptimizer opt;
  private final StageTies ties;
  private final LossScaler scaler;
  private final StepListener listener;
  private final String dataDescription;
  private final StepData stepData; // null for GRPO: its prompt set is its data
  private final MicroBatches passes;
  private final Divergence divergence;
  private final LossSpike spikes;

  TrainStep(TrainingSpec spec, Distributed dist, BuiltModel built, ShardedOptimizer opt, StageTies ties, LossScaler scaler,
            StepListener listener) {
    var precision = spec.precision();
    this.t = spec.train();
    this.dist = dist;
    this.built = built;
    this.opt = opt;
    this.ties = ties;
    this.scaler = scaler;
    this.listener = listener;
    this.divergence = new Divergence("fp16".equals(precision.dtype()), precision.maxConsecutiveSkips());
    this.spikes = new LossSpike(t.lossSpike());
    if (t.grpoObjective()) { // GRPO reads only its prompts (GrpoMicroBatches): data.source is no token stream
      this.dataDescription = "prompts " + spec.data().source();
      this.stepData = null;
    } else {
      TokenSource data = TokenSource.of(spec.data(), t.seed());
      int micro = spec.parallel().microBatches();
      DistributedSampler sampler = new DistributedSampler(t.globalBatch(), spec.parallel().dp(), dist.coord().dp(), micro);
      this.dataDescription = data.describe();
      this.stepData = new StepData(data, sampler, spec.data().seqLen(), dist.device(), new Zigzag(dist.cp().size(), dist.cp().rank()));
    }
    this.passes = MicroBatches.of(spec, built, opt, stepData, dist);
  }

  /** Where the step's tokens come from, for the run's first log line. */
  String dataDescription() { return dataDescription; }

  /** The objective's side of a step (held-out evaluation runs the same objective). */
  MicroBatches passes() { return passes; }

  /**
   * Step {@code step} at learning rate {@code lr} on the data of step {@code dataStep} (later than {@code step} once a
   * loss-spike rollback passed data over); {@code firstStep} is this attempt's first (activation probes).
   */
  StepOutcome run(long step, long dataStep, double lr, long firstStep) {
    double stepScale = scaler.scale();
    try (PointerScope scope = new PointerScope()) {
      passes.beginStep(step);
      List<Batches.Batch> host = batches(dataStep);
      LossNormalizer norm = passes.normalizer(host, dist.dp(), dist.cp().size()); // the one count of the global batch's targets (DPO: of its pairs)
      if (norm.empty()) return StepOutcome.withoutTargets(lr, stepScale); // every rank skips alike; preemption is agreed at the next step
      double localLoss = microBatches(step, firstStep, host, norm);
      long commNs = built.takeLayerWaitNanos();
      commNs += reduce();
      double scale = scaler.scale();
      double gradNorm = opt.gradNorm(scale);
      long c1 = System.nanoTime();
      ReducedLoss reduced = reduceLoss(localLoss); // before the update, so the loss-spike guard can leave a spike's update out
      commNs += System.nanoTime() - c1;
      String lossCause = reduced.cause();
      LossSpike.Verdict verdict = spikes.check(reduced.loss());
      if (verdict == LossSpike.Verdict.STOP) lossCause = spikes.cause(reduced.loss());
      else if (verdict == LossSpike.Verdict.SKIP && dist.rank() == 0) {
        log.warn("step {}: {}; the step's update is left out (train.lossSpike.action=skip)", step, spikes.cause(reduced.loss()));
      }
      String spike = verdict == LossSpike.Verdict.ROLLBACK ? spikes.cause(reduced.loss()) : null; // the loop rolls back
      boolean skip = scaler.update(gradNorm) || !Double.isFinite(gradNorm) || verdict == LossSpike.Verdict.SKIP || spike != null;
      String gradCause = divergence.gradientCause(gradNorm);
      clipAndStep(skip, lr, gradNorm, scale);
      StepMetrics.ZeroComm zeroComm = opt.takeComm(); // forward/backward gathers, reductions and stage 1-2's parameter gather
      commNs += (long) (zeroComm.exposedMs() * 1e6);
      long c2 = System.nanoTime();
      Map<String, Double> objective = objectiveMetrics();
      commNs += System.nanoTime() - c2;
      return new StepOutcome(false, lr, reduced.loss(), gradNorm, stepScale, skip, reduced.preempted(), gradCause, lossCause,
          spike, zeroComm, commNs, objective);
    }
  }

  /** Batches: this rank's micro-batches of the step, on the host. */
  private List<Batches.Batch> batches(long step) { return stepData == null ? List.of() : stepData.hostBatches(step); }

  /** Micro-batches: forward and backward of each; the gradients land in the optimizer's buffers. */
  private double microBatches(long step, long firstStep, List<Batches.Batch> host, LossNormalizer norm) {
    if (ActivationProbe.measures(step, firstStep, t.steps()) && ActivationProbe.enabled() && !dist.device().cuda()) {
      passes.measureActivations(dist.world());
    }
    return passes.run(stepData == null ? host : stepData.place(host), norm, scaler.scale());
  }

  /**
   * Reduce: what the data-parallel buckets leave. Context-parallel ranks hold the same parameters but each saw only
   * its part of every sample: their gradients are summed; so are tensor-parallel partial gradients and the two stages'
   * copies of a tied parameter. Returns the nanoseconds it took.
   */
  private long reduce() {
    long p0 = System.nanoTime();
    sumOverCp();
    opt.sumOverTp(built.model().parameters().partialGradParams());
    for (String tied : ties.held()) opt.sumOwned(Set.of(tied), g -> ties.sum(tied, g));
    return System.nanoTime() - p0;
  }

  private void sumOverCp() {
    Communicator cp = dist.cp();
    if (cp.size() == 1) return;
    Set<String> names = new HashSet<>();
    for (Param p : built.trainable()) names.add(p.name());
    opt.sumOwned(names, g -> cp.allReduce(g, ReduceOp.SUM));
  }

  /** The step's loss over the ranks (only the last pipeline stage holds one), with the agreed preemption flag. */
  private ReducedLoss reduceLoss(double localLoss) {
    double[][] summed = new double[1][];
    double loss = Divergence.reduce(dist, passes.holdsLoss(), localLoss, PreemptStop.localFlag(), summed);
    return new ReducedLoss(loss, PreemptStop.agreed(summed[0]), Divergence.lossCause(dist, passes.holdsLoss(), localLoss, summed[0]));
  }

  private record ReducedLoss(double loss, boolean preempted, String cause) {}

  /** Clip and step: the update at {@code lr} with the gradients unscaled and clipped to train.clipGradNorm, or none. */
  private void clipAndStep(boolean skip, double lr, double gradNorm, double scale) {
    if (skip) {
      opt.discardGradients();
      return;
    }
    double clip = t.clipGradNorm() > 0 && gradNorm > t.clipGradNorm() ? t.clipGradNorm() / (gradNorm + 1e-6) : 1.0;
    opt.step(lr, clip / scale);
  }

  /** The objective's own metrics (DPO: rewards), the experts' load and what the micro-batches measured of themselves. */
  private Map<String, Double> objectiveMetrics() {
    return passes.withMeasured(ExpertLoad.with(passes.objectiveMetrics(dist.dp()), built.model(), dist, listener));
  }
}
