package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.HybridGroups;
import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.data.Batches;
import dev.weft.data.DistributedSampler;
import dev.weft.data.TokenSource;
import dev.weft.log.LogContext;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.ProcessMemory;
import dev.weft.metrics.RunSummary;
import dev.weft.metrics.StepMetrics;
import dev.weft.models.LanguageModel;
import dev.weft.models.Parameters.Param;
import dev.weft.models.StagedModel;
import dev.weft.parallel.context.ContextLayers;
import dev.weft.parallel.context.Zigzag;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.parallel.data.Zero3Layers;
import dev.weft.parallel.pipeline.StageTies;
import dev.weft.parallel.tensor.TensorParallelLayers;
import dev.weft.parallel.tensor.TpOps;
import dev.weft.precision.Autocast;
import dev.weft.precision.LossScaler;
import dev.weft.preempt.GracePeriod;
import dev.weft.preempt.Preemption;
import dev.weft.spec.TrainingSpec;
import dev.weft.tracking.RunTracking;
import dev.weft.util.Median;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank's training run: build the model and its sharded optimizer, then per step run the
 * micro-batches (forward under autocast, backward of the scaled loss; data-parallel buckets reduce
 * while backward runs), take the global gradient norm (which also detects fp16 overflow on any
 * rank), clip, step or skip, and record the metrics. Every step runs inside its own PointerScope so
 * the native memory of temporaries is released at the step's end.
 */
public final class TrainingLoop {
  private static final Logger log = LoggerFactory.getLogger(TrainingLoop.class);

  private static final long ALL_REDUCE_BUCKET_ELEMENTS = 1 << 18; // stages 0-1: 1 MiB of fp32 (parallel.zeroBucketMiB is ZeRO-2/3's)

  private TrainingLoop() {}

  public static RunResult run(TrainingSpec spec, Distributed dist, Path runDir, StepListener listener) {
    long wallStart = System.nanoTime();
    boolean leader = dist.rank() == 0;
    var t = spec.train();
    var precision = spec.precision();
    int micro = spec.parallel().microBatches();
    int seqLen = spec.data().seqLen();
    Communicator dp = dist.dp();

    HybridGroups expertGroups = dist.expertGroups(spec.parallel().ep()); // ep: experts split within, replicated across
    LanguageModel model = ModelBuilder.build(spec, dist.tp(), dist.cp(), expertGroups.shard(), dist.coord().pp());
    dev.weft.models.Layers layers = ModelBuilder.belowExperts(model.layers());
    List<Param> all = model.parameters().list();
    Placement.moveParameters(all, dist.device()); // before the optimizer's flat buffers take their device from them
    StageTies ties = StageTies.find(model.parameters(), dist.pp()); // tied embeddings split over pipeline stages
    ties.syncValues(model.parameters());
    int zero = spec.parallel().zero();
    List<Param> params = model.parameters().trainable(); // a frozen base (LoRA) has no gradient and no optimizer state
    // ZeRO-3 needs every parameter in a layer unit; stages 1-2 gate per layer only when that holds
    boolean perLayer = layers instanceof Zero3Layers z && (zero == 3 || z.units().length == params.size());
    int[] units = perLayer ? ((Zero3Layers) layers).units() : new int[params.size()];
    HybridGroups zeroGroups = dist.zeroGroups(spec.parallel().zeroShardSize()); // HSDP: shard within, replicate across
    ShardedOptimizer opt = new ShardedOptimizer(zero, params, units, zeroGroups.shard(), dist.tp(), t,
        precision.reduceDtype(), zero >= 2 ? spec.parallel().zeroBucketElements() : ALL_REDUCE_BUCKET_ELEMENTS,
        spec.parallel().zeroPrefetch(), ties.held(), ties.copies(), ExpertShards.of(model, expertGroups));
    opt.replicateOver(zeroGroups.replicate());
    if (perLayer) ((Zero3Layers) layers).bind(opt);
    dev.weft.models.Layers plain = layers instanceof dev.weft.models.lora.LoraLayers l ? l.inner() : layers;
    ContextLayers context = plain instanceof ContextLayers c ? c : null;
    if (context != null) plain = context.inner();
    TpOps tpOps = plain instanceof TensorParallelLayers tpl ? tpl.ops() : null;
    opt.pipelineGroup(dist.pp());
    opt.shardStep(dist.backend().shardStep());
    LossScaler scaler = new LossScaler("fp16".equals(precision.dtype()), precision.initialScale(),
        precision.growthInterval(), precision.backoff());
    Divergence divergence = new Divergence("fp16".equals(precision.dtype()), precision.maxConsecutiveSkips());
    LossSpike spikes = new LossSpike(t.lossSpike());
    long lastStep = t.steps(); // earlier when early stopping ends the run
    double bestEval = Double.POSITIVE_INFINITY;
    int evalsWithoutGain = 0;
    TokenSource data = TokenSource.of(spec.data(), t.seed());
    DistributedSampler sampler = new DistributedSampler(t.globalBatch(), spec.parallel().dp(), dist.coord().dp(), micro);
    StepData stepData = new StepData(data, sampler, seqLen, dist.device(), new Zigzag(dist.cp().size(), dist.cp().rank()));
    MicroBatches passes = t.dpoObjective() ? DpoMicroBatches.of(spec, model, opt, dist)
        : t.grpoObjective() ? GrpoMicroBatches.of(spec, model, opt, dist) : microBatches(spec, model, opt, stepData, dist);
    long tokensPerStep = (long) t.globalBatch() * seqLen;
    if (leader) {
      log.info("training {}: {} parameters on this rank ({} trainable), zero={}, precision={}, data: {}, {} steps × {} samples × {} tokens",
          spec.name(), model.parameters().numel(), params.stream().mapToLong(Param::numel).sum(), opt.stage(), precision.dtype(), data.describe(), t.steps(),
          t.globalBatch(), seqLen);
    }

    GracePeriod grace = GracePeriod.of(System.getenv(), spec.deployment().terminationGraceSeconds());
    ValidationLoss validation = ValidationLoss.open(spec, model, dist);
    TrainingCheckpoints checkpoints = TrainingCheckpoints.open(spec, dist, runDir);
    long resumedAt = checkpoints.restore(opt, scaler, dist);
    AcrossRanks.requireSameStart(resumedAt, dist);
    int scheduleSteps = checkpoints.scheduleSteps(t);
    LrSchedule schedule = LrSchedule.of(t, scheduleSteps);
    if (leader && scheduleSteps != t.steps()) {
      log.info("train.steps={} differs from the {} steps the learning-rate schedule was made for: the schedule stays as it was"
          + " (from step {} on lr is its final {}); set train.resumeSchedule=stretch to spread it over {} steps", t.steps(),
          scheduleSteps, scheduleSteps, schedule.at(scheduleSteps), t.steps());
    }
    if (resumedAt >= t.steps()) {
      throw new dev.weft.spec.SpecException("train.steps", "the checkpoint holds step " + resumedAt
          + ", the run asks for " + t.steps() + " steps in all; raise train.steps to train further");
    }
    List<Double> losses = new ArrayList<>();
    List<Double> stepMs = new ArrayList<>();
    long skipped = 0;
    if (leader) checkpoints.startRecord(runDir, resumedAt);
    MetricsJson out = leader ? new MetricsJson(runDir, resumedAt > 0, RunTracking.sinks(spec, runDir)) : null;
    listener.onRankStart(dist.rank(), model.parameters().numel());
    ShardedOptimizer.Memory held = opt.memory();
    listener.onMemory(dist.rank(), held.parameterBytes(), held.gradientBytes(), held.optimizerBytes());
    long prevEnd = System.nanoTime();
    try (opt; checkpoints; Preemption.Guard sigterm = Preemption.guard("training", grace.saveDeadline())) {
      for (long step = resumedAt + 1; step <= t.steps(); step++) {
        LogContext.step(step); // log lines from here on name the step
        long s0 = System.nanoTime();
        long commNs = 0;
        double lr = schedule.at(step);
        double loss;
        double gradNorm;
        double stepScale = scaler.scale();
        boolean stepSkipped;
        boolean preempted;
        StepMetrics.ZeroComm zeroComm;
        String gradCause, lossCause;
        boolean noTargets;
        Map<String, Double> objective = Map.of(); // the objective's own metrics (DPO: rewards)
        try (PointerScope scope = new PointerScope()) {
          List<Batches.Batch> host = stepData.hostBatches(step);
          LossNormalizer norm = passes instanceof DpoMicroBatches ? DpoMicroBatches.pairs(t.globalBatch(), dp.size())
              : LossNormalizer.of(host, dp).contextParallel(dist.cp().size()); // the one count of the global batch's targets (DPO: of its pairs)
          noTargets = norm.empty();
          if (noTargets) {
            loss = gradNorm = Double.NaN;
            stepSkipped = true;
            preempted = false; // every rank skips this step alike; the flag is agreed at the next one
            zeroComm = null;
            gradCause = lossCause = null;
          } else {
            if (passes instanceof SequentialMicroBatches s && ActivationProbe.measures(step, resumedAt + 1, t.steps()) && ActivationProbe.enabled() && !dist.device().cuda()) s.probe.arm(dist.world());
            double localLoss = passes.run(stepData.place(host), norm, scaler.scale());
            if (tpOps != null) {
              commNs += tpOps.takeWaitNanos(); // tensor-parallel collectives the step waited for
              tpOps.dropPendingHooks();
            }
            if (context != null) commNs += context.takeWaitNanos(); // ring exchanges attention did not hide
            long p0 = System.nanoTime();
            sumOverCp(opt, params, dist.cp());
            opt.sumOverTp(model.parameters().partialGradParams());
            for (String tied : ties.held()) opt.sumOwned(java.util.Set.of(tied), g -> ties.sum(tied, g));
            commNs += System.nanoTime() - p0;
            double scale = scaler.scale();
            gradNorm = opt.gradNorm(scale);
            // the step's loss, reduced before the update so the loss-spike guard can leave a spike's update out
            long c1 = System.nanoTime();
            double[][] summed = new double[1][];
            loss = Divergence.reduce(dist, passes.holdsLoss(), localLoss, PreemptStop.localFlag(), summed); // only the last stage has a loss
            preempted = PreemptStop.agreed(summed[0]);
            lossCause = Divergence.lossCause(dist, passes.holdsLoss(), localLoss, summed[0]);
            commNs += System.nanoTime() - c1;
            LossSpike.Verdict verdict = spikes.check(loss);
            if (verdict == LossSpike.Verdict.STOP) lossCause = spikes.cause(loss);
            else if (verdict == LossSpike.Verdict.SKIP && leader) log.warn("step {}: {}; the step's update is left out (train.lossSpike.action=skip)", step, spikes.cause(loss));
            boolean skip = scaler.update(gradNorm) || !Double.isFinite(gradNorm) || verdict == LossSpike.Verdict.SKIP;
            gradCause = divergence.gradientCause(gradNorm);
            stepSkipped = skip;
            if (skip) {
              if (gradCause == null) skipped++; // a diverging step stops the run; it is no skip
              opt.discardGradients();
            } else {
              double clip = t.clipGradNorm() > 0 && gradNorm > t.clipGradNorm() ? t.clipGradNorm() / (gradNorm + 1e-6) : 1.0;
              opt.step(lr, clip / scale);
            }
            zeroComm = opt.takeComm(); // forward/backward gathers, reductions and stage 1-2's parameter gather
            commNs += (long) (zeroComm.exposedMs() * 1e6);
            long c2 = System.nanoTime();
            if (passes instanceof DpoMicroBatches d) objective = d.metrics(dp);
            if (passes instanceof GrpoMicroBatches g) objective = g.metrics(leader); // rewards, clip ratio, rollout time
            objective = ExpertLoad.with(objective, model, dist, listener);
            if (passes instanceof SequentialMicroBatches s) objective = s.probe.with(objective); // activation_mib, measured
            commNs += System.nanoTime() - c2;
          }
        }
        if (noTargets) {
          skipped++;
          if (leader) log.warn("step {}: no token of the global batch is a target (all are {}); the step is skipped", step, Batches.IGNORE);
          saveIfDue(step, checkpoints, opt, scaler, listener, dist);
          listener.atStepBoundary(dist.rank(), step);
          prevEnd = System.nanoTime();
          continue;
        }
        double ms = (System.nanoTime() - s0) / 1e6;
        if (gradCause != null || lossCause != null) {
          String why = Divergence.message(spec, step, lossCause, gradCause, runDir);
          double attemptFirst = losses.isEmpty() ? Double.NaN : losses.get(0);
          double first = resumedAt == 0 ? attemptFirst : MetricsJson.lossAt(runDir, 1).orElse(attemptFirst);
          if (leader) MetricsJson.writeSummary(runDir, StoppedSummary.of("diverged", spec, dist, step, first, losses, skipped,
              (System.nanoTime() - wallStart) / 1e9, why));
          throw new TrainingDivergedException(why);
        }
        losses.add(loss);
        stepMs.add(ms);
        double tps = tokensPerStep / (ms / 1000);
        StepMetrics sm = new StepMetrics(step, loss, lr, gradNorm, tokensPerStep, ms, tps,
            tps * model.trainingFlopsPerToken(), ms - commNs / 1e6, commNs / 1e6, step == 1 ? 0 : (s0 - prevEnd) / 1e6,
            dist.mesh().worldSize(), ProcessMemory.peakRssBytes(), stepScale, stepSkipped, zeroComm);
        listener.onRankStep(dist.rank(), sm, t.steps());
        dist.backend().deviceMemory(dist.device()).ifPresent(m -> {
          listener.onDeviceMemory(dist.rank(), m);
          if (out != null) out.deviceMemory(m); // recorded with this step's line
        });
        Double evalLoss = validation != null && validation.due(step, t.steps(), t.evalEvery()) ? validation.run() : null;
        if (leader) {
          out.step(sm, evalLoss, objective);
          listener.onStep(sm, t.steps());
          consoleExtras(step, t, evalLoss, objective);
        }
        boolean saved = saveIfDue(step, checkpoints, opt, scaler, listener, dist);
        if (preempted) {
          final long at = step;
          double first = !leader || resumedAt == 0 ? losses.get(0) : MetricsJson.lossAt(runDir, 1).orElse(losses.get(0));
          throw PreemptStop.stop(spec, dist, runDir, checkpoints, step, saved, () -> checkpoints.save(at, opt, scaler), first,
              losses, skipped, (System.nanoTime() - wallStart) / 1e9);
        }
        listener.atStepBoundary(dist.rank(), step);
        prevEnd = System.nanoTime();
        if (evalLoss != null && t.earlyStopping().enabled()) { // every rank holds the same reduced eval loss: all stop alike
          if (evalLoss < bestEval - t.earlyStopping().minDelta()) {
            bestEval = evalLoss;
            evalsWithoutGain = 0;
          } else if (++evalsWithoutGain >= t.earlyStopping().patience() && step < t.steps()) {
            if (leader) log.info("early stopping at step {}: eval_loss {} has not improved on its best {} by more than {} for {}"
                + " evaluations (train.earlyStopping)", step, evalLoss, bestEval, t.earlyStopping().minDelta(), evalsWithoutGain);
            lastStep = step;
            break;
          }
        }
      }
      ShardedOptimizer.Memory mem = opt.memory();
      opt.gatherAll();
      boolean consistent = ReplicaCheck.consistent(all, dp, dist.world(), ExpertShards.of(model, expertGroups));
      List<dev.weft.models.Weights.Slice> trained = dev.weft.models.Weights.snapshot(model.parameters());
      opt.releaseAll();
      double medianMs = stepMs.isEmpty() ? 0 : Median.of(stepMs);
      double tps = tokensPerStep / (medianMs / 1000);
      Map<String, Integer> mesh = new LinkedHashMap<>();
      mesh.put("dp", dist.mesh().dp());
      mesh.put("tp", dist.mesh().tp());
      mesh.put("pp", dist.mesh().pp());
      if (dist.mesh().cp() > 1) mesh.put("cp", dist.mesh().cp());
      if (expertGroups.shard().size() > 1) mesh.put("ep", expertGroups.shard().size()); // a sub-group of dp, not more ranks
      // the whole run, not this attempt: the last step reached, and step 1's loss from the metrics of earlier attempts
      double lastLoss = losses.isEmpty() ? Double.NaN : losses.get(losses.size() - 1); // NaN: every step was without targets
      // where step 1's loss is not in this run's record (resumed from another run's checkpoint): this attempt's first
      double attemptFirst = losses.isEmpty() ? Double.NaN : losses.get(0);
      double initialLoss = resumedAt == 0 ? attemptFirst : MetricsJson.lossAt(runDir, 1).orElse(attemptFirst);
      RunSummary summary = new RunSummary("completed", lastStep, dist.mesh().worldSize(), mesh, initialLoss,
          lastLoss, tps, medianMs, tps * model.trainingFlopsPerToken(),
          (System.nanoTime() - wallStart) / 1e9, consistent, AcrossRanks.globalParameterCount(model, dist, expertGroups.shard()), precision.dtype(), opt.stage(),
          new RunSummary.Memory(mem.parameterBytes(), mem.gradientBytes(), mem.optimizerBytes(), ProcessMemory.peakRssBytes(),
              dist.backend().deviceMemory(dist.device()).orElse(null)),
          skipped, null, 0, null);
      if (leader) {
        MetricsJson.writeSummary(runDir, summary);
        out.close(); // lineage.json is finished on close, before the record is published
        checkpoints.publishRecord();
      }
      return new RunResult(losses, summary, spec, trained, null);
    } finally {
      if (out != null) out.close();
    }
  }

  /** The checkpoint of {@code step} (trained or skipped) when one is due; whether it was saved. */
  private static boolean saveIfDue(long step, TrainingCheckpoints checkpoints, ShardedOptimizer opt, LossScaler scaler,
                                   StepListener listener, Distributed dist) {
    long save0 = System.nanoTime();
    boolean saved = checkpoints.maybeSave(step, opt, scaler);
    if (saved) listener.onCheckpointSaved(dist.rank(), step, java.time.Duration.ofNanos(System.nanoTime() - save0));
    return saved;
  }

  static MicroBatches microBatches(TrainingSpec spec, LanguageModel model, ShardedOptimizer opt, StepData data,
                                           Distributed dist) {
    var p = spec.parallel();
    if (p.pp() == 1 && !spec.train().recompute()) return new SequentialMicroBatches(model, opt, data, spec.precision().dtype());
    if (!(model instanceof StagedModel staged)) {
      throw new dev.weft.spec.SpecException(p.pp() > 1 ? "parallel.pp" : "train.recompute", "model.factory="
          + spec.model().factory() + " builds a model that does not implement dev.weft.models.StagedModel;"
          + " implement it to use pipeline stages or recomputation");
    }
    int seqPerRank = spec.data().seqLen() / (p.sequenceParallel() ? p.tp() : 1) / p.cp();
    return new PipelinedMicroBatches(staged, opt, data, spec.precision().dtype(), p.pp() > 1 ? p.schedule() : "1f1b", dist.pp(),
        spec.train().recompute(), seqPerRank);
  }

  /**
   * Context-parallel ranks hold the same parameters but each saw only its part of every sample: their
   * gradients (already reduced over data parallelism, on the elements this rank owns) are summed.
   */
  private static void sumOverCp(ShardedOptimizer opt, List<Param> params, Communicator cp) {
    if (cp.size() == 1) return;
    java.util.Set<String> names = new java.util.HashSet<>();
    for (Param p : params) names.add(p.name());
    opt.sumOwned(names, g -> cp.allReduce(g, ReduceOp.SUM));
  }

  /**
   * What the step line does not carry, on the console as {@code name=value} (Katib reads them too): the held-out loss
   * when it was computed, and DPO's rewards at the step line's cadence (the first, every logEvery-th and the last step).
   */
  private static void consoleExtras(long step, dev.weft.spec.TrainSpec t, Double evalLoss, Map<String, Double> objective) {
    if (evalLoss != null) log.info(String.format(java.util.Locale.ROOT, "step %d/%d  eval_loss=%.6f", step, t.steps(), evalLoss));
    if (!objective.containsKey("rewards_accuracy") || (step != 1 && step != t.steps() && step % t.logEvery() != 0)) return;
    log.info(String.format(java.util.Locale.ROOT, "step %d/%d  rewards_accuracy=%.4f rewards_margin=%.6f rewards_chosen=%.6f rewards_rejected=%.6f",
        step, t.steps(), objective.get("rewards_accuracy"), objective.get("rewards_margin"), objective.get("rewards_chosen"),
        objective.get("rewards_rejected")));
  }
}
