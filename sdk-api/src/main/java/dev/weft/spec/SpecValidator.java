package dev.weft.spec;

import java.util.List;

/**
 * Checks a spec's own fields, up front, and names the field and what to change. The checks that need the
 * data sources, the model factory or the schedules follow in {@code dev.weft.plan.SpecCheck}, which callers use.
 */
public final class SpecValidator {

  private SpecValidator() {}

  /** DPO keeps a pair (chosen, rejected) in one micro-batch and runs the whole model on each rank's pairs. */
  private static void grpoLayout(TrainingSpec s, TrainSpec t, ParallelSpec p) {
    String src = s.data().source() == null ? "" : s.data().source();
    require(src.endsWith(".jsonl"), "data.source", "train.objective=grpo samples completions of prompts; use a .jsonl file of rows with "
        + "a prompt or messages field (and any fields the rewards read)");
    require(p.pp() == 1, "parallel.pp", "train.objective=grpo does not run through pipeline stages yet; use parallel.pp=1");
    require(p.cp() == 1, "parallel.cp", "train.objective=grpo does not split sequences over context-parallel ranks yet; use parallel.cp=1");
    require(p.ep() == 1, "parallel.ep", "train.objective=grpo does not split experts yet; use parallel.ep=1");
    require(p.tp() == 1 || !p.sequenceParallel(), "parallel.sequenceParallel", "train.objective=grpo samples one token at a time, "
        + "which does not split over tensor-parallel ranks; use parallel.sequenceParallel=false");
    require(t.epochs() == 0, "train.epochs", "train.objective=grpo counts steps, not passes over the prompts; set train.steps");
    require(t.evalEvery() == 0 || s.data().eval().endsWith(".jsonl"), "train.evalEvery", "train.objective=grpo evaluates held-out"
        + " prompts (greedy completions scored by the rewards); set data.eval to a .jsonl prompt file or train.evalEvery=0");
    require(!s.checkpoint().saveBest(), "checkpoint.saveBest", "chooses by eval loss, which train.objective=grpo does not compute;"
        + " use checkpoint.saveBest=false");
    require(t.earlyStopping().patience() == 0, "train.earlyStopping.patience", "watches the eval loss, which train.objective=grpo"
        + " does not compute; use train.earlyStopping.patience=0");
    int perRank = t.globalBatch() / Math.max(1, p.dp());
    require(t.globalBatch() % t.grpo().groupSize() == 0 && perRank % t.grpo().groupSize() == 0, "train.globalBatch",
        t.globalBatch() + " completions must be whole groups of train.grpo.groupSize=" + t.grpo().groupSize() + " on each of the "
        + p.dp() + " data-parallel ranks");
  }

  private static void dpoLayout(TrainSpec t, ParallelSpec p) {
    int perMicro = t.globalBatch() / (p.dp() * p.microBatches());
    require(perMicro % 2 == 0, "train.globalBatch", "with train.objective=dpo a micro-batch holds whole pairs (chosen, rejected);"
        + " " + t.globalBatch() + " / (dp × microBatches) = " + perMicro + " is odd; use a global batch of 2 × pairs that keeps it even");
    require(p.pp() == 1, "parallel.pp", "train.objective=dpo does not run through pipeline stages yet; use parallel.pp=1");
    require(!t.recompute(), "train.recompute", "train.objective=dpo does not recompute yet; use train.recompute=false");
  }

  /** The learning-rate schedule's fields ({@code train.minLr}, {@code minLrRatio}, {@code schedule}, warm-up, decay). */
  private static void lrSchedule(TrainSpec t) {
    if (t.minLr() != null) {
      require(t.minLr() >= 0 && t.minLr() <= t.lr(), "train.minLr", t.minLr() + " must be between 0 and train.lr=" + t.lr()
          + " (an absolute rate); or remove it and set train.minLrRatio, the final rate as a fraction of lr");
    }
    require(t.minLrRatio() >= 0 && t.minLrRatio() <= 1, "train.minLrRatio", t.minLrRatio()
        + " must be between 0 and 1 (the final learning rate as a fraction of train.lr)");
    require(SpecChoice.find(LrScheduleKind.class, t.schedule()).isPresent(), "train.schedule",
        "'" + t.schedule() + "' is not a learning-rate schedule; use one of " + SpecChoice.spellings(LrScheduleKind.class));
    require(t.warmup() >= 0, "train.warmup", t.warmup() + " must be 0 or more steps");
    require(t.warmupRatio() >= 0 && t.warmupRatio() < 1, "train.warmupRatio", t.warmupRatio()
        + " must be at least 0 and below 1 (a fraction of train.steps; 0 = use train.warmup)");
    require("keep".equals(t.resumeSchedule()) || "stretch".equals(t.resumeSchedule()), "train.resumeSchedule",
        "'" + t.resumeSchedule() + "' is not a choice; use keep (the schedule the run started with) or stretch (over the new train.steps)");
    require(t.decayRatio() > 0 && t.decayRatio() <= 1, "train.decayRatio", t.decayRatio()
        + " must be above 0 and at most 1 (the fraction of train.steps wsd decays over)");
  }

  /** Validates the spec on its own (no process count). */
  public static TrainingSpec validate(TrainingSpec s) {
    SpecSecrets.refuse(s); // first: no later message may repeat a credential
    require(s.name() != null && s.name().matches("[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?"), "name",
        "'" + s.name() + "' must be 1-52 lowercase letters, digits or '-' (it names files and cluster objects)");
    DeviceChoice.parse(s.device());
    ParallelSpec p = mesh(s).parallel();
    require(SpecChoice.find(PipelineSchedule.class, p.schedule()).isPresent(), "parallel.schedule",
        "'" + p.schedule() + "' is not a schedule; use one of " + SpecChoice.spellings(PipelineSchedule.class));
    require(SpecChoice.find(CpMethod.class, p.cpMethod()).isPresent(), "parallel.cpMethod",
        "'" + p.cpMethod() + "' is not a context-parallel method; use one of " + SpecChoice.spellings(CpMethod.class));
    require(p.zero() >= 0 && p.zero() <= 3, "parallel.zero", p.zero() + " is not a ZeRO stage; use 0, 1, 2 or 3");
    require(p.zeroPrefetch() >= 0 && p.zeroPrefetch() <= 64, "parallel.zeroPrefetch",
        p.zeroPrefetch() + " groups ahead is out of range; use 0 (gather on use) to 64");
    require(p.zeroBucketMiB() > 0 && p.zeroBucketMiB() <= 1024, "parallel.zeroBucketMiB",
        p.zeroBucketMiB() + " MiB is not a bucket size; use more than 0 and at most 1024");

    TrainSpec t = s.train();
    positive(t.steps(), "train.steps");
    require(t.epochs() >= 0 && t.epochs() <= 10_000, "train.epochs", t.epochs() + " must be 0 (use train.steps) or 1 to 10000 passes over the data");
    positive(t.globalBatch(), "train.globalBatch");
    int perStep = p.dp() * p.microBatches();
    require(t.globalBatch() % perStep == 0, "train.globalBatch",
        t.globalBatch() + " is not divisible by dp × microBatches = " + p.dp() + " × " + p.microBatches()
            + "; use a multiple of " + perStep);
    require(t.lr() > 0 && Double.isFinite(t.lr()), "train.lr", t.lr() + " must be a positive number");
    lrSchedule(t);
    require(t.clipGradNorm() >= 0, "train.clipGradNorm", t.clipGradNorm() + " must be 0 (off) or positive");
    require(t.weightDecay() >= 0, "train.weightDecay", t.weightDecay() + " must be 0 or positive");
    require(SpecChoice.find(OptimizerKind.class, t.optimizer()).isPresent(), "train.optimizer",
        "'" + t.optimizer() + "' is not an optimizer; use one of " + SpecChoice.spellings(OptimizerKind.class));
    require(t.beta1() >= 0 && t.beta1() < 1, "train.beta1", t.beta1() + " must be in [0, 1)");
    require(t.beta2() >= 0 && t.beta2() < 1, "train.beta2", t.beta2() + " must be in [0, 1)");
    positive(t.logEvery(), "train.logEvery");
    LoraSpec.validate(t.lora());
    if (t.lora().quantized()) {
      require(p.tp() == 1 && p.pp() == 1 && p.ep() == 1, "train.lora.quantize", t.lora().quantize() + " holds the base whole on each "
          + "rank; it runs with dp, ZeRO and cp, not yet with parallel.tp, pp or ep > 1: use train.lora.quantize=none there");
    }
    require(t.lora().dropout() == 0 || !t.recompute(), "train.lora.dropout", t.lora().dropout() + " with train.recompute would"
        + " draw other dropout masks when the forward is recomputed; use train.lora.dropout=0 or train.recompute=false");
    require(SpecChoice.find(TrainObjective.class, t.objective()).isPresent(), "train.objective",
        "'" + t.objective() + "' is not an objective; use one of " + SpecChoice.spellings(TrainObjective.class));
    DpoSpec.validate(t.dpo());
    GrpoSpec.validate(t.grpo());
    if (t.grpoObjective()) grpoLayout(s, t, p);
    LossSpikeSpec.validate(t.lossSpike());
    LossSpikeSpec.validateWith(t.lossSpike(), s.checkpoint());
    EarlyStoppingSpec.validate(t.earlyStopping(), t.evalEvery());
    boolean pairs = s.data().source() != null && s.data().source().startsWith("preference:");
    if (t.dpoObjective()) {
      require(pairs, "data.source", "train.objective=dpo trains on preference pairs; use data.source: preference:DIR (written by "
          + "weft data prepare --format preference)");
      dpoLayout(t, p);
      require(t.evalEvery() == 0 || s.data().eval().startsWith("preference:"), "train.evalEvery", "with train.objective=dpo"
          + " evaluates held-out pairs; set data.eval: preference:DIR (weft data prepare --format preference) or train.evalEvery=0");
    } else {
      require(!pairs || t.grpoObjective(), "train.objective", "data.source names preference pairs, which only DPO trains on; set train.objective=dpo");
      require(!s.data().eval().startsWith("preference:"), "data.eval", "names preference pairs, which only DPO evaluates;"
          + " give held-out data of the training data's kind");
    }
    require(t.lossChunk() >= 0, "train.lossChunk", t.lossChunk() + " must be 0 (the whole logits at once) or a number of tokens per chunk");
    require(t.evalEvery() >= 0, "train.evalEvery", t.evalEvery() + " must be 0 (never) or a number of steps");
    if (t.evalEvery() > 0) {
      require(s.data().heldOut(), "train.evalEvery", "needs held-out data; set data.eval to a held-out source or data.validation"
          + " to a fraction such as 0.05");
      require(p.pp() == 1, "train.evalEvery", "the validation loss is not computed through pipeline stages yet; use parallel.pp=1 or train.evalEvery=0");
    }

    PrecisionSpec pr = s.precision();
    dtype(pr.dtype(), "precision.dtype");
    dtype(pr.reduceDtype(), "precision.reduceDtype");
    require(pr.maxConsecutiveSkips() >= 0, "precision.maxConsecutiveSkips", pr.maxConsecutiveSkips()
        + " must be 0 (an fp16 overflow stops the run) or more");

    DataSpec d = s.data();
    positive(d.seqLen(), "data.seqLen");
    require(List.of(DataSpec.AUTO, "true", "false").contains(d.packing()), "data.packing", "'" + d.packing()
        + "' must be true (whole documents packed into each sample), false (one document per sample) or auto");
    require(List.of(DataSpec.SPLIT, "right", "left", "drop").contains(d.truncation()), "data.truncation", "'" + d.truncation()
        + "' must be split (a long document cut into samples), right (its first data.maxLength tokens), left (its last) or drop");
    require(d.maxLength() >= 0, "data.maxLength", d.maxLength() + " must be 0 (one sample) or a number of tokens");
    require(d.maxLength() == 0 || !DataSpec.SPLIT.equals(d.truncation()), "data.maxLength", "needs data.truncation right, left "
        + "or drop (split cuts a long document into samples whatever its length)");
    require(d.chat().train().isEmpty() || DataSpec.Chat.CHOICES.contains(d.chat().train()), "data.chat.train", "'"
        + d.chat().train() + "' must be assistant (every assistant turn), last (the last assistant turn) or all (every token)");

    CheckpointSpec c = s.checkpoint();
    require(c.every() >= 0, "checkpoint.every", c.every() + " must be 0 (never) or a number of steps");
    positive(c.keep(), "checkpoint.keep");
    require(!c.saveBest() || t.evalEvery() > 0, "checkpoint.saveBest", "needs an eval loss to choose by; set train.evalEvery"
        + " (and data.eval or data.validation)");
    // the value is never echoed: someone may have put the key itself here
    require(c.key().isEmpty() || c.key().equals(CheckpointSpec.KEY_REQUIRED), "checkpoint.key", "takes '' or '"
        + CheckpointSpec.KEY_REQUIRED + "', never the key itself (it would be copied into spec.yaml and every manifest);"
        + " put the key in the environment variable WEFT_CHECKPOINT_KEY (from a Secret: deployment.secretEnv.WEFT_CHECKPOINT_KEY)");
    ElasticSpec e = s.elastic();
    positive(e.minNodes(), "elastic.minNodes");
    require(e.maxNodes() >= e.minNodes(), "elastic.maxNodes", e.maxNodes() + " is below elastic.minNodes=" + e.minNodes());
    require(e.maxRestarts() >= 0, "elastic.maxRestarts", e.maxRestarts() + " must be 0 or more");
    require(e.heartbeatSeconds() > 0, "elastic.heartbeatSeconds", e.heartbeatSeconds() + " must be above 0");
    require(e.failureTimeoutSeconds() >= 2 * e.heartbeatSeconds(), "elastic.failureTimeoutSeconds", e.failureTimeoutSeconds()
        + " must be at least twice elastic.heartbeatSeconds=" + e.heartbeatSeconds() + " or a single late beat looks like a failure");
    ElasticSpec.rdzvBackendName(e.rdzvBackend(), "elastic.rdzvBackend");
    require(e.joinWindowSeconds() >= 0, "elastic.joinWindowSeconds", e.joinWindowSeconds()
        + " must be 0 (seal as soon as minNodes joined) or more");
    require(e.standby() >= 0, "elastic.standby", e.standby() + " must be 0 (no warm standby worker) or more");
    if (e.rdzvEndpoint() != null && !e.rdzvEndpoint().isBlank()) Endpoint.parse(e.rdzvEndpoint(), "elastic.rdzvEndpoint");
    require(s.metrics().port() >= 0 && s.metrics().port() < 65536, "metrics.port", s.metrics().port() + " is not a port");
    Endpoint.requireHost(s.metrics().bind(), "metrics.bind");
    PrecisionSpec ps = s.precision();
    require(ps.initialScale() > 0, "precision.initialScale", ps.initialScale() + " must be a positive loss scale");
    require(ps.backoff() > 0 && ps.backoff() < 1, "precision.backoff", ps.backoff() + " must be in (0, 1): the factor the loss scale shrinks by");
    positive(ps.growthInterval(), "precision.growthInterval");
    require(LoggingSpec.FORMATS.contains(s.logging().format()), "logging.format",
        "'" + s.logging().format() + "' is not a log format; use text or json");
    return s;
  }

  /** The mesh sizes alone, which a host plan is built from before the whole check runs. */
  public static TrainingSpec mesh(TrainingSpec s) {
    ParallelSpec p = s.parallel();
    positive(p.dp(), "parallel.dp");
    positive(p.tp(), "parallel.tp");
    positive(p.pp(), "parallel.pp");
    positive(p.cp(), "parallel.cp");
    positive(p.ep(), "parallel.ep");
    require(p.zeroShardSize() >= 0, "parallel.zeroShardSize", p.zeroShardSize() + " is not a group size; use 0 (all of dp) or a divisor of parallel.dp");
    positive(p.microBatches(), "parallel.microBatches");
    return s;
  }

  /** Validates the spec and that {@code nproc} processes make exactly its mesh. */
  public static TrainingSpec validate(TrainingSpec s, int nproc) {
    ParallelSpec p = s.parallel();
    if (p.worldSize() != nproc) {
      String field = p.tp() == 1 && p.pp() == 1 && p.cp() == 1 ? "parallel.dp" : "parallel";
      String sizes = p.cp() == 1 ? "dp × tp × pp = " + p.dp() + " × " + p.tp() + " × " + p.pp()
          : "dp × cp × tp × pp = " + p.dp() + " × " + p.cp() + " × " + p.tp() + " × " + p.pp();
      throw new SpecException(field, sizes + " = " + p.worldSize()
          + " ranks, but the process count (--nproc) is " + nproc + "; set --nproc " + p.worldSize()
          + " or change parallel.dp/cp/tp/pp so that their product is " + nproc);
    }
    return validate(s);
  }

  static void positive(long v, String field) {
    require(v >= 1, field, v + " must be at least 1");
  }

  private static void dtype(String value, String field) {
    require(SpecChoice.find(PrecisionDtype.class, value).isPresent(), field,
        "'" + value + "' is not a precision; use one of " + SpecChoice.spellings(PrecisionDtype.class));
  }

  public static void require(boolean ok, String field, String message) {
    if (!ok) throw new SpecException(field, message);
  }
}
