package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.comm.HybridGroups;
import dev.weft.log.LogContext;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.ProcessMemory;
import dev.weft.metrics.RunSummary;
import dev.weft.models.LanguageModel;
import dev.weft.models.Parameters.Param;
import dev.weft.models.Weights;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.parallel.pipeline.StageTies;
import dev.weft.precision.LossScaler;
import dev.weft.preempt.GracePeriod;
import dev.weft.preempt.Preemption;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.tracking.RunTracking;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank's training run, in the order it happens: build (the model and the handles its step reads, the sharded
 * optimizer, the step), restore (the checkpoint to resume from and the learning-rate schedule), then per step:
 * {@link TrainStep#run} (batches, micro-batches, reduce, clip, step), {@link RunRecord#step} (record),
 * {@link #saveIfDue} (save); then the summary ({@link #finish}).
 */
public final class TrainingLoop {
  private static final Logger log = LoggerFactory.getLogger(TrainingLoop.class);

  private static final long ALL_REDUCE_BUCKET_ELEMENTS = 1 << 18; // stages 0-1: 1 MiB of fp32 (parallel.zeroBucketMiB is ZeRO-2/3's)

  private TrainingLoop() {}

  /**
   * @param keepWeights whether the result carries a copy of the trained weights ({@link RunResult#slices}) for a JVM that
   *     goes on (fit()); a worker process that exits after the run leaves it out: the copy was a whole second model
   *     at the run's end (a 1B full fine-tune's 4.6 GiB, past what a 24 GiB machine had left)
   */
  public static RunResult run(TrainingSpec spec, Distributed dist, Path runDir, StepListener listener, boolean keepWeights) {
    long wallStart = System.nanoTime();
    boolean leader = dist.rank() == 0;
    var t = spec.train();
    // build
    BuiltModel built = ModelBuilder.forTraining(spec, dist, dist.expertGroups(spec.parallel().ep())); // ep: experts split within, replicated across
    LanguageModel model = built.model();
    Placement.moveParameters(model.parameters().list(), dist.device()); // before the optimizer's flat buffers take their device from them
    StageTies ties = StageTies.find(model.parameters(), dist.pp()); // tied embeddings split over pipeline stages
    ties.syncValues(model.parameters());
    ShardedOptimizer opt = optimizer(spec, dist, built, ties);
    var precision = spec.precision();
    LossScaler scaler = new LossScaler("fp16".equals(precision.dtype()), precision.initialScale(),
        precision.growthInterval(), precision.backoff());
    TrainStep steps = new TrainStep(spec, dist, built, opt, ties, scaler, listener);
    long tokensPerStep = (long) t.globalBatch() * spec.data().seqLen();
    if (leader) {
      log.info("training {}: {} parameters on this rank ({} trainable), zero={}, precision={}, data: {}, {} steps × {} samples × {} tokens",
          spec.name(), model.parameters().numel(), built.trainable().stream().mapToLong(Param::numel).sum(), opt.stage(),
          precision.dtype(), steps.dataDescription(), t.steps(), t.globalBatch(), spec.data().seqLen());
    }
    GracePeriod grace = GracePeriod.of(System.getenv(), spec.deployment().terminationGraceSeconds());
    ValidationLoss validation = ValidationLoss.open(spec, model, dist, steps.passes());
    // restore
    TrainingCheckpoints checkpoints = TrainingCheckpoints.open(spec, dist, runDir);
    long resumedAt = restore(spec, dist, checkpoints, opt, scaler);
    LrSchedule schedule = schedule(spec, checkpoints, leader);
    if (leader) checkpoints.startRecord(runDir, resumedAt);
    MetricsJson out = leader ? new MetricsJson(runDir, resumedAt > 0, RunTracking.sinks(spec, runDir)) : null;
    listener.onRankStart(dist.rank(), model.parameters().numel());
    ShardedOptimizer.Memory held = opt.memory();
    listener.onMemory(dist.rank(), held.parameterBytes(), held.gradientBytes(), held.optimizerBytes());
    EarlyStopping early = new EarlyStopping(t, leader);
    checkpoints.bestEvalLoss().ifPresent(early::resumeWith); // a resumed run's first evaluation is no gain over a better best
    long lastStep = t.steps(); // earlier when early stopping ends the run
    long prevEnd = System.nanoTime();
    long residentAtStart = ProcessMemory.rssBytes(); // what the steps' activations come on top of
    try (RunRecord record = new RunRecord(t, dist, runDir, resumedAt, out, listener, validation, tokensPerStep,
        model.trainingFlopsPerToken()); opt; checkpoints; Preemption.Guard sigterm = Preemption.guard("training", grace.saveDeadline())) {
      for (long step = resumedAt + 1; step <= t.steps(); step++) {
        LogContext.step(step); // log lines from here on name the step
        long s0 = System.nanoTime();
        StepOutcome o = steps.run(step, step + checkpoints.dataSkip(), schedule.at(step), resumedAt + 1); // batches, micro-batches, reduce, clip, step
        if (o.spike() != null) { // train.lossSpike.action=rollback: the update was left out; back to the last checkpoint
          long back = checkpoints.rollBack(step, opt, scaler, dist);
          if (back < 0) throw diverged(spec, dist, runDir, step, noRollback(o.spike(), checkpoints), null, record, wallStart);
          record.rolledBack(step, back, o.spike(), checkpoints.rollbackTarget(), checkpoints.dataSkip());
          step = back; // the loop goes on with step back + 1, on the data after the spike
          prevEnd = System.nanoTime();
          continue;
        }
        record.countSkip(step, o);
        if (!o.noTargets()) {
          double ms = (System.nanoTime() - s0) / 1e6;
          if (o.diverged()) throw diverged(spec, dist, runDir, step, o.lossCause(), o.gradCause(), record, wallStart);
          Double evalLoss = record.step(step, o, ms, step == 1 ? 0 : (s0 - prevEnd) / 1e6); // record
          checkpoints.afterEval(step, evalLoss, opt, scaler); // records eval_loss; checkpoint.saveBest saves a new lowest
          boolean saved = saveIfDue(step, checkpoints, opt, scaler, listener, dist); // save
          if (o.preempted()) throw preempted(spec, dist, runDir, checkpoints, step, saved, opt, scaler, record, wallStart);
          listener.atStepBoundary(dist.rank(), step);
          prevEnd = System.nanoTime();
          if (early.stopsAfter(step, evalLoss)) {
            lastStep = step;
            break;
          }
        } else { // no update was made: still a step to save at
          saveIfDue(step, checkpoints, opt, scaler, listener, dist);
          listener.atStepBoundary(dist.rank(), step);
          prevEnd = System.nanoTime();
        }
      }
      return finish(spec, dist, runDir, built, opt, record, lastStep, wallStart, out, checkpoints, keepWeights, residentAtStart);
    }
  }

  /** The optimizer over the trainable parameters, sharded as parallel.zero says (HSDP: within groups, replicated across). */
  private static ShardedOptimizer optimizer(TrainingSpec spec, Distributed dist, BuiltModel built, StageTies ties) {
    int zero = spec.parallel().zero();
    int[] layerUnits = built.layerUnits(zero);
    HybridGroups zeroGroups = dist.zeroGroups(spec.parallel().zeroShardSize());
    ShardedOptimizer opt = new ShardedOptimizer(zero, built.trainable(),
        layerUnits != null ? layerUnits : new int[built.trainable().size()], zeroGroups.shard(), dist.tp(), spec.train(),
        spec.precision().reduceDtype(), zero >= 2 ? spec.parallel().zeroBucketElements() : ALL_REDUCE_BUCKET_ELEMENTS,
        spec.parallel().zeroPrefetch(), ties.held(), ties.copies(), built.experts());
    opt.replicateOver(zeroGroups.replicate());
    if (layerUnits != null) built.zeroUnits().bind(opt);
    opt.pipelineGroup(dist.pp());
    opt.shardStep(dist.backend().shardStep());
    return opt;
  }

  /** Restore: the step the checkpoint holds (0: a fresh start), the same on every rank and short of train.steps. */
  private static long restore(TrainingSpec spec, Distributed dist, TrainingCheckpoints checkpoints, ShardedOptimizer opt,
                              LossScaler scaler) {
    long resumedAt = checkpoints.restore(opt, scaler, dist);
    AcrossRanks.requireSameStart(resumedAt, dist);
    if (resumedAt >= spec.train().steps()) {
      throw new SpecException("train.steps", "the checkpoint holds step " + resumedAt
          + ", the run asks for " + spec.train().steps() + " steps in all; raise train.steps to train further");
    }
    return resumedAt;
  }

  /** The learning-rate schedule over the steps it was made for (a resumed run keeps its checkpoint's unless told). */
  private static LrSchedule schedule(TrainingSpec spec, TrainingCheckpoints checkpoints, boolean leader) {
    var t = spec.train();
    int scheduleSteps = checkpoints.scheduleSteps(t);
    LrSchedule schedule = LrSchedule.of(t, scheduleSteps);
    if (leader && scheduleSteps != t.steps()) {
      log.info("train.steps={} differs from the {} steps the learning-rate schedule was made for: the schedule stays as it was"
          + " (from step {} on lr is its final {}); set train.resumeSchedule=stretch to spread it over {} steps", t.steps(),
          scheduleSteps, scheduleSteps, schedule.at(scheduleSteps), t.steps());
    }
    return schedule;
  }

  /** Save: the checkpoint of {@code step} (trained or skipped) when one is due; whether it was saved. */
  private static boolean saveIfDue(long step, TrainingCheckpoints checkpoints, ShardedOptimizer opt, LossScaler scaler,
                                   StepListener listener, Distributed dist) {
    long save0 = System.nanoTime();
    boolean saved = checkpoints.maybeSave(step, opt, scaler);
    if (saved) listener.onCheckpointSaved(dist.rank(), step, Duration.ofNanos(System.nanoTime() - save0));
    return saved;
  }

  /** The run stops as diverged at {@code step}: rank 0 writes the summary that says why. */
  private static TrainingDivergedException diverged(TrainingSpec spec, Distributed dist, Path runDir, long step, String lossCause,
                                                    String gradCause, RunRecord record, long wallStart) {
    String why = Divergence.message(spec, step, lossCause, gradCause, runDir);
    if (dist.rank() == 0) MetricsJson.writeSummary(runDir, StoppedSummary.of("diverged", spec, dist, step, record.initialLoss(true),
        record.losses(), record.skipped(), (System.nanoTime() - wallStart) / 1e9, why));
    return new TrainingDivergedException(why);
  }

  /** Why a spike under {@code action: rollback} stops the run instead: no checkpoint yet, or rolled back to it too often. */
  private static String noRollback(String spike, TrainingCheckpoints checkpoints) {
    return spike + (checkpoints.rollbackTarget() == null ? ", and no checkpoint was saved yet to roll back to"
        : ", and the run rolled back to " + checkpoints.rollbackTarget() + " " + dev.weft.spec.LossSpikeSpec.MAX_ROLLBACKS
        + " times already (each time past more data)");
  }

  /** Every rank agreed to stop after {@code step} (SIGTERM): its checkpoint is saved (if it was not due) and the run ends. */
  private static RunPreemptedException preempted(TrainingSpec spec, Distributed dist, Path runDir, TrainingCheckpoints checkpoints,
                                                 long step, boolean saved, ShardedOptimizer opt, LossScaler scaler,
                                                 RunRecord record, long wallStart) {
    return PreemptStop.stop(spec, dist, runDir, checkpoints, step, saved, () -> checkpoints.save(step, opt, scaler),
        record.initialLoss(dist.rank() == 0), record.losses(), record.skipped(), (System.nanoTime() - wallStart) / 1e9);
  }

  /**
   * The end of a completed run: the whole parameters gathered and checked equal across replicas, this rank's trained
   * slices taken, and (rank 0) the summary written and the checkpoint record published.
   */
  private static RunResult finish(TrainingSpec spec, Distributed dist, Path runDir, BuiltModel built, ShardedOptimizer opt,
                                  RunRecord record, long lastStep, long wallStart, MetricsJson out, TrainingCheckpoints checkpoints,
                                  boolean keepWeights, long residentAtStart) {
    LanguageModel model = built.model();
    ShardedOptimizer.Memory mem = opt.memory();
    opt.gatherAll();
    boolean consistent = ReplicaCheck.consistent(model.parameters().list(), dist.dp(), dist.world(), built.experts());
    List<Weights.Slice> trained = keepWeights ? Weights.snapshot(model.parameters()) : List.of();
    opt.releaseAll();
    double medianMs = record.medianStepMs();
    double tps = (long) spec.train().globalBatch() * spec.data().seqLen() / (medianMs / 1000);
    Map<String, Integer> mesh = new LinkedHashMap<>();
    mesh.put("dp", dist.mesh().dp());
    mesh.put("tp", dist.mesh().tp());
    mesh.put("pp", dist.mesh().pp());
    if (dist.mesh().cp() > 1) mesh.put("cp", dist.mesh().cp());
    if (built.expertGroups().shard().size() > 1) mesh.put("ep", built.expertGroups().shard().size()); // a sub-group of dp, not more ranks
    // the whole run, not this attempt: the last step reached, and step 1's loss from the metrics of earlier attempts
    RunSummary summary = new RunSummary("completed", lastStep, dist.mesh().worldSize(), mesh, record.initialLoss(true),
        record.lastLoss(), tps, medianMs, tps * model.trainingFlopsPerToken(),
        (System.nanoTime() - wallStart) / 1e9, consistent, AcrossRanks.globalParameterCount(model, dist, built.expertGroups().shard()),
        spec.precision().dtype(), opt.stage(),
        new RunSummary.Memory(mem.parameterBytes(), mem.gradientBytes(), mem.optimizerBytes(), ProcessMemory.peakRssBytes(), residentAtStart,
            dist.backend().deviceMemory(dist.device()).orElse(null)),
        record.skipped(), null, 0, null);
    if (out != null) {
      MetricsJson.writeSummary(runDir, summary);
      out.close(); // lineage.json is finished on close, before the record is published
      checkpoints.publishRecord();
    }
    return new RunResult(record.losses(), summary, spec, trained, null);
  }
}
