package dev.weft.train;

import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.CheckpointException;
import dev.weft.checkpoint.CheckpointKey;
import dev.weft.checkpoint.CheckpointMeta;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.Checkpointer;
import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.RunRecord;
import dev.weft.metrics.MetricsJson;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.checkpoint.CommitStore;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.StateEntry;
import dev.weft.checkpoint.TensorSlice;
import dev.weft.comm.Distributed;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.precision.LossScaler;
import dev.weft.spec.CheckpointSpec;
import dev.weft.spec.LossSpikeSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints of a training run: where they go, when to save, and how a run starts from one
 * (resume, in any layout) or from consolidated weights. The training state is the optimizer's
 * sharded entries plus a few numbers (step, samples consumed, loss scale); the data position is the
 * global step, so a resumed run reads exactly the samples the original would have.
 */
final class TrainingCheckpoints implements AutoCloseable {
  private long resumedScheduleSteps; // 0: not resumed
  private static final Logger log = LoggerFactory.getLogger(TrainingCheckpoints.class);
  /** State key: the optimizer kind whose moments the checkpoint holds ({@link ResumeChecks}). */
  static final String OPTIMIZER_KEY = "optimizer";

  private final TrainingSpec spec;
  private final LoraBase loraBase;
  private final CheckpointStorage storage;
  private final Path localWork;
  private final Checkpointer saver;
  private final RunRecord record; // rank 0's, when the checkpoints live outside the run dir
  private final BestCheckpoint best = new BestCheckpoint();
  private long lastSaved;
  private long dataSkip; // batches passed over by loss-spike rollbacks, in steps; saved with every checkpoint
  private String rollbackTarget; // the newest checkpoint saved or resumed from: where a rollback goes
  private final Map<String, Integer> rollbacks = new java.util.HashMap<>();

  private TrainingCheckpoints(TrainingSpec spec, CheckpointStorage storage, Path localWork, Checkpointer saver, RunRecord record) {
    this.spec = spec;
    this.loraBase = new LoraBase(spec);
    this.storage = storage;
    this.localWork = localWork;
    this.saver = saver;
    this.record = record;
  }

  static TrainingCheckpoints open(TrainingSpec spec, Distributed dist, Path runDir) {
    var c = spec.checkpoint();
    String dir = c.dir().isBlank() ? runDir.resolve("checkpoints").toString() : c.dir();
    // an object store stages shards and caches downloads here; one folder per rank, as ranks may share a run directory
    Path localWork = runDir.resolve(".checkpoint-work").resolve("rank-" + dist.rank());
    boolean saves = c.every() > 0 || c.saveBest();
    boolean needed = saves || !c.resume().isBlank();
    if (needed) requireKey(c);
    CheckpointStorage storage = needed ? CheckpointStorages.open(dir, localWork) : null;
    Checkpointer saver = null;
    if (saves) {
      CommitStore store = dist.store() == null ? CommitStore.inProcess() : CommitStore.of(dist.store());
      saver = Checkpointer.create(storage, dist.rank(), dist.mesh().worldSize(), store, Checkpointer.Options.of(c));
    }
    RunRecord record = storage != null && dist.rank() == 0 ? RunRecord.of(storage, runDir) : null;
    return new TrainingCheckpoints(spec, storage, localWork, saver, record);
  }

  /**
   * Rank 0, before its first step: a run resumed after {@code resumedAt} continues the run record's metrics.jsonl
   * (fetched from the checkpoints' location when it is elsewhere) cut to that step, so every step appears once.
   */
  void startRecord(Path runDir, long resumedAt) {
    if (resumedAt == 0) return; // a fresh run starts a fresh metrics.jsonl
    if (record != null) record.resume(resumedAt);
    else MetricsJson.keepThrough(runDir.resolve(RunRecord.METRICS), resumedAt);
  }

  /** Rank 0: the run dir's record files go to the checkpoints' location (when that is elsewhere). */
  void publishRecord() {
    if (record != null) record.publish();
  }

  /** The environment's checkpoint key is usable, and present where the spec says {@code checkpoint.key: required}. */
  private static void requireKey(CheckpointSpec c) {
    CheckpointKey key;
    try {
      key = CheckpointKey.fromEnvironment();
    } catch (CheckpointException e) {
      throw new SpecException("checkpoint.key", e.getMessage());
    }
    if (!key.present() && CheckpointSpec.KEY_REQUIRED.equals(c.key())) {
      throw new SpecException("checkpoint.key", "is '" + CheckpointSpec.KEY_REQUIRED + "' but " + CheckpointKey.ENV
          + " is not set; set it (from a Secret on Kubernetes: deployment.secretEnv." + CheckpointKey.ENV + "=SECRET/KEY) on every node");
    }
  }

  /**
   * The steps the learning-rate schedule runs over: this spec's {@code train.steps}, or, resumed from a checkpoint
   * whose schedule was made for other steps, those ({@code train.resumeSchedule: keep}, the default) unless
   * {@code stretch} asks for the new count.
   */
  int scheduleSteps(dev.weft.spec.TrainSpec t) {
    if (resumedScheduleSteps <= 0 || resumedScheduleSteps > Integer.MAX_VALUE || "stretch".equals(t.resumeSchedule())) return t.steps();
    return (int) resumedScheduleSteps;
  }

  /**
   * Loads the checkpoint named by {@code checkpoint.resume}, or the initial weights named by
   * {@code checkpoint.initWeights}, into the optimizer's entries; returns the step the run continues
   * after (0 for a fresh run).
   */
  long restore(ShardedOptimizer opt, LossScaler scaler, Distributed dist) {
    var c = spec.checkpoint();
    if (!c.resume().isBlank()) {
      Loaded l = load(c.resume(), opt, scaler, dist, c.resetOptimizer());
      if (c.resetOptimizer()) log.info("checkpoint.resetOptimizer: weights loaded, {} optimizer state starts fresh", spec.train().optimizer());
      if (saver != null) saver.resumedFrom(l.state().step());
      carryBest(l.ckpt());
      resumedScheduleSteps = l.state().scheduleSteps();
      CheckpointMeta meta = l.meta();
      log.info("resumed from {} (step {}, saved with dp={} tp={} pp={} cp={} zero={})", l.from(), meta.step(),
          meta.mesh().dp(), meta.mesh().tp(), meta.mesh().pp(), meta.mesh().cp(), meta.zeroStage());
      if (l.state().dataSkip() > 0) log.info("the data position is {} steps ahead of the step (loss-spike rollbacks passed it over)", l.state().dataSkip());
      return l.state().step();
    }
    if (!c.initWeights().isBlank()) {
      loadInitialWeights(Path.of(c.initWeights()), opt.stateEntries());
      return 0;
    }
    return 0;
  }

  /**
   * The best evaluation before the resumed step stays the one to beat, and its checkpoint stays pinned: without this a
   * resumed run took its first evaluation, however worse, for a new best and let retention delete the real one.
   */
  private void carryBest(Checkpoint ckpt) {
    best.restore(ckpt);
    if (best.bestStep() <= 0) return;
    if (saver != null && spec.checkpoint().saveBest()) saver.pin(best.bestStep());
    log.info("resumed with the best eval_loss so far at step {} (checkpoint.saveBest keeps it unless a later evaluation is lower)",
        best.bestStep());
  }

  /** A checkpoint loaded into the optimizer's entries: the checkpoint, its state, its manifest, and where it came from. */
  private record Loaded(Checkpoint ckpt, ResumeState state, CheckpointMeta meta, String from) {}

  /** Loads {@code which} ({@code latest}, a path or a URI) into the optimizer's entries, the loss scale and the data position. */
  private Loaded load(String which, ShardedOptimizer opt, LossScaler scaler, Distributed dist, boolean resetOptimizer) {
    CheckpointStorage source = CheckpointStorages.forResume(storage, which, localWork);
    Checkpoint ckpt;
    ResumeState state;
    try {
      ckpt = CheckpointResolver.resolve(source, which, cand -> {
        ResumeState.of(cand, scaler.scale());
        cand.checkFits(opt.stateEntries()); // a global shape edited in the manifest: fall back past it
      });
      state = ResumeState.of(ckpt, scaler.scale());
      TrainingSpec saved = ckpt.meta().trainingSpec(); // read back by ResumeState already
      loraBase.requireSame(ckpt);
      ResumeChecks.requireSameOptimizer(spec, ckpt, saved);
      ckpt.load(ResumeChecks.loadable(spec, ckpt, saved, opt.stateEntries(), dist));
      source.dropFetched();
    } finally {
      if (source != storage) source.close();
    }
    CheckpointMeta meta = ckpt.meta();
    if (state.globalBatch() != spec.train().globalBatch()) {
      log.warn("checkpoint {} was trained with train.globalBatch={}, this run uses {}: the data position is kept by step",
          ckpt.dir(), state.globalBatch(), spec.train().globalBatch());
    }
    opt.restoreStepCount(resetOptimizer ? 0 : state.optimizerSteps()); // fresh moments: bias correction from step 1
    scaler.restore(state.lossScale(), state.goodSteps());
    dataSkip = state.dataSkip();
    String from = "latest".equals(which) ? source.locationOf(meta.step()) : which;
    rollbackTarget = from;
    return new Loaded(ckpt, state, meta, from);
  }

  /**
   * The loss-spike guard's rollback ({@code train.lossSpike.action: rollback}) at {@code spikeStep}: the last checkpoint
   * this run saved or resumed from loaded again, and the data of the steps from it through the spike passed over from
   * now on. Returns the step the run continues after, or -1 when there is none to go back to (no checkpoint yet, or
   * this one rolled back to {@link LossSpikeSpec#MAX_ROLLBACKS} times already).
   */
  long rollBack(long spikeStep, ShardedOptimizer opt, LossScaler scaler, Distributed dist) {
    awaitCommitted(); // an async save of the last checkpoint must be whole before it is read
    if (rollbackTarget == null || rollbacksTo(rollbackTarget) >= LossSpikeSpec.MAX_ROLLBACKS) return -1;
    String target = rollbackTarget;
    long skipBefore = dataSkip;
    Loaded l = load(target, opt, scaler, dist, false);
    rollbacks.merge(target, 1, Integer::sum);
    long back = l.state().step();
    dataSkip = skipBefore + (spikeStep - back); // the batches of steps back+1..spikeStep, as they were read, are not read again
    opt.releaseAll(); // ZeRO-3: groups gathered before the load hold the abandoned weights
    return back;
  }

  /** How often the run rolled back to {@code target}. */
  private int rollbacksTo(String target) { return rollbacks.getOrDefault(target, 0); }

  /** Where the last checkpoint the run could roll back to is, or null. */
  String rollbackTarget() { return rollbackTarget; }

  /** Steps the data position is ahead of the step: the batches loss-spike rollbacks passed over (0 without any). */
  long dataSkip() { return dataSkip; }

  /** Copies this rank's slices of each model tensor out of a consolidated weights file. */
  private static void loadInitialWeights(Path file, List<StateEntry> entries) {
    if (!Files.isRegularFile(file)) {
      throw new SpecException("checkpoint.initWeights", file + " does not exist; give a file written by weft checkpoint consolidate");
    }
    Map<String, Tensor> weights = ConsolidatedWeights.load(file);
    try (NoGradGuard ng = new NoGradGuard()) {
      for (StateEntry e : entries) {
        if (!e.name().startsWith(ConsolidatedWeights.MODEL_PREFIX)) continue;
        String name = e.name().substring(ConsolidatedWeights.MODEL_PREFIX.length());
        Tensor full = weights.get(name);
        if (full == null) {
          throw new SpecException("checkpoint.initWeights", file + " has no tensor '" + name + "'; was it written for this model?");
        }
        e.data().copy_(extract(full, e.slice()).view(e.data().sizes()));
      }
    }
  }

  /** The elements of {@code full} that {@code slice} names, flat. */
  static Tensor extract(Tensor full, TensorSlice slice) {
    long[] shape = full.sizes().vec().get();
    if (!java.util.Arrays.equals(shape, slice.globalShape())) {
      throw new SpecException("checkpoint.initWeights", "a tensor of shape " + java.util.Arrays.toString(shape)
          + " cannot fill " + java.util.Arrays.toString(slice.globalShape()) + "; the weights belong to another model size");
    }
    Tensor box = full;
    for (int d = 0; d < shape.length; d++) box = box.narrow(d, slice.offset()[d], slice.shape()[d]);
    return box.contiguous().reshape(-1).narrow(0, slice.flatStart(), slice.flatLength()).to(full.scalar_type());
  }

  /** Saves when {@code step} is a multiple of {@code checkpoint.every}; returns whether it did. */
  boolean maybeSave(long step, ShardedOptimizer opt, LossScaler scaler) {
    if (step == lastSaved) return true; // the best checkpoint of this step
    int every = spec.checkpoint().every();
    if (saver == null || every <= 0 || step % every != 0) return false;
    save(step, opt, scaler);
    return true;
  }

  /**
   * Step {@code step} evaluated to {@code evalLoss} (null: it did not evaluate): a checkpoint of this step records it.
   * With {@code checkpoint.saveBest} a new lowest is saved now and kept from pruning. Call before the step's regular
   * save, which then finds the step saved.
   */
  void afterEval(long step, Double evalLoss, ShardedOptimizer opt, LossScaler scaler) {
    if (evalLoss == null || !best.note(step, evalLoss) || !spec.checkpoint().saveBest()) return;
    save(step, opt, scaler);
    saver.pin(step);
    log.info("step {}: eval_loss {} is the lowest so far; its checkpoint is kept as the best (checkpoint.saveBest)", step, evalLoss);
  }

  /** The lowest eval loss recorded before this run resumed (or measured since); empty when there is none. */
  java.util.OptionalDouble bestEvalLoss() { return best.bestLoss(); }

  /** Whether this run saves checkpoints at all ({@code checkpoint.every} > 0 or {@code checkpoint.saveBest}). */
  boolean saving() { return saver != null; }

  /** Waits until the last save (an async one included) is committed; rethrows its failure. */
  void awaitCommitted() {
    if (saver != null) saver.await();
  }

  /** Saves checkpoint {@code step} now, whatever {@code checkpoint.every} says (an emergency save); needs {@link #saving()}. */
  void save(long step, ShardedOptimizer opt, LossScaler scaler) {
    Map<String, Object> state = new LinkedHashMap<>();
    state.put("samples_consumed", (step + dataSkip) * spec.train().globalBatch());
    state.put(ResumeState.DATA_SKIP, dataSkip);
    state.put("optimizer_steps", opt.stepCount());
    state.put("loss_scale", scaler.scale());
    state.put("good_steps", scaler.goodSteps());
    state.put("seed", spec.train().seed());
    state.put("schedule_steps", scheduleSteps(spec.train()));
    state.put(OPTIMIZER_KEY, spec.train().optimizer());
    // whose checkpoint this is: an elastic agent refuses to resume its run from another token's (no secret: a digest)
    state.put(dev.weft.comm.RunToken.STATE_KEY,
        dev.weft.comm.RunToken.identity(dev.weft.comm.RunToken.fromEnv(dev.weft.comm.WorkerEnv.get())));
    loraBase.record(state);
    Double evalLoss = best.lossAt(step);
    if (evalLoss != null) state.put(BestCheckpoint.EVAL_LOSS, evalLoss);
    best.record(state);
    // before the commit: the record holds every step up to any checkpoint a later run resumes from
    if (record != null) record.publish(List.of(RunRecord.METRICS));
    saver.save(CheckpointMeta.of(step, spec, state), opt.stateEntries());
    lastSaved = step;
    rollbackTarget = storage.locationOf(step);
  }

  @Override
  public void close() {
    try {
      if (saver != null) saver.close();
    } finally {
      if (storage != null) storage.close();
    }
  }
}
