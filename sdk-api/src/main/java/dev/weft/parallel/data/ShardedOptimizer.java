package dev.weft.parallel.data;

import dev.weft.checkpoint.StateEntry;
import dev.weft.comm.Communicator;
import dev.weft.comm.SoloCommunicator;
import dev.weft.metrics.StepMetrics.ZeroComm;
import dev.weft.models.Parameters.Param;
import dev.weft.optim.AdamArgs;
import dev.weft.optim.ShardStep;
import dev.weft.parallel.data.FlatLayout.Bucket;
import dev.weft.parallel.data.FlatLayout.Slot;
import dev.weft.spec.OptimizerKind;
import dev.weft.spec.TrainSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Data-parallel gradient reduction and a fused optimizer over flat, sharded buffers: ZeRO stages 0–3.
 *
 * <ul>
 *   <li>Stage 0: gradients all-reduced in buckets as they fill; every rank updates everything.
 *   <li>Stage 1: the same reduction; each rank keeps and updates only its shard of the optimizer
 *       state, then the updated parameters are all-gathered (straight into the flat buffer that the
 *       parameters are views of); under {@link #gateByUnits} each layer of the next forward waits
 *       for its own bucket only, so the gather runs behind compute.
 *   <li>Stage 2: each bucket is reduce-scattered into its owner's gradient shard as it fills (every
 *       micro-batch) and the full gradients are dropped.
 *   <li>Stage 3: parameters live only as shards; {@link #gather} / {@link #release} bring a unit's
 *       full parameters in just before use and drop them after (see {@link Zero3Layers}).
 * </ul>
 *
 * The optimizer step is a handful of vectorised passes per bucket shard (AdamW, Adam or SGD),
 * with global-norm clipping computed over shards and ranks, and loss-scale unscaling folded into it.
 * Buffers are owned here, the gradient-ready hooks by {@link ReadyHooks}; construct outside any PointerScope. Each bucket's
 * buffers and reduction are a {@link BucketState}; ZeRO-3 gathering is {@link UnitGathering}; the tp sum and
 * the global norm are {@link ShardGradients}; checkpoint naming is {@link ShardStateEntries}.
 */
public final class ShardedOptimizer implements AutoCloseable {
  /** Bytes this rank holds for parameters, gradients and optimizer state. */
  public record Memory(long parameterBytes, long gradientBytes, long optimizerBytes) {}

  private final int stage;
  private final Communicator dp;
  private final Communicator tp;
  private Communicator pp;
  private Communicator replicate = new SoloCommunicator("dpReplicate"); // HSDP: dp is then the shard group
  private final ExpertGroups experts; // expert parallelism: the experts' buckets reduce over edp, not dp
  private ShardStep shardStep = ShardStep.LIBTORCH;
  private final TrainSpec train;
  private final ScalarType reduceType;
  private final List<Param> params;
  private final Set<String> copies;
  private final FlatLayout layout;
  private final List<BucketState> states = new ArrayList<>();
  private final UnitGathering gathering;
  private final ReadyHooks hooks; // null on one rank: nothing to reduce
  private final CommClock clock = new CommClock();
  private boolean paramsGated; // stages 1-2: every layer waits for its own parameters (Zero3Layers), so the post-step gather runs behind the next forward
  private long step;

  /**
   * @param units unit id per parameter (a layer, numbered in forward order); consecutive units are
   *     merged into gather groups of at least {@code bucketElements} ({@link UnitGroups}), one bucket
   *     each; with a single unit, buckets close at {@code bucketElements}
   * @param bucketElements target bucket size in elements
   * @param prefetch ZeRO-3: gather groups fetched ahead of the one computing
   */
  public ShardedOptimizer(int stage, List<Param> params, int[] units, Communicator dp, Communicator tp, TrainSpec train,
                          String reduceDtype, long bucketElements, int prefetch) {
    this(stage, params, units, dp, tp, train, reduceDtype, bucketElements, prefetch, Set.of(), Set.of(), ExpertGroups.none());
  }

  /**
   * @param tied parameters another pipeline stage holds too (tied embeddings): each gets a bucket and a
   *     gather group of its own, so every stage holding it owns the same elements ({@link #sumOwned})
   * @param copies those of them whose original another stage holds: counted once in the gradient
   *     norm and written once in checkpoints, by the original's stage
   * @param experts expert parallelism: routed experts' parameters get buckets of their own, reduced and sharded over
   *     the edp group instead of {@code dp} (and under ZeRO-3 are gathered over it)
   */
  public ShardedOptimizer(int stage, List<Param> params, int[] units, Communicator dp, Communicator tp, TrainSpec train,
                          String reduceDtype, long bucketElements, int prefetch, Set<String> tied, Set<String> copies,
                          ExpertGroups experts) {
    this.experts = experts;
    this.copies = Set.copyOf(copies);
    this.stage = stage;
    this.dp = dp;
    this.tp = tp;
    this.train = train;
    this.reduceType = BucketState.wireType(reduceDtype);
    this.params = List.copyOf(params);
    long[] numels = params.stream().mapToLong(Param::numel).toArray();
    boolean[] alone = BucketPasses.named(params, tied), expert = BucketPasses.named(params, experts.names());
    UnitGroups groups = UnitGroups.plan(numels, units, bucketElements, alone);
    int[] groupOfParam = groups.ofParams(units);
    this.gathering = new UnitGathering(clock, groups, prefetch);
    long closeAt = groups.count() > 1 ? Long.MAX_VALUE : bucketElements; // a group is one bucket
    this.layout = FlatLayout.plan(numels, groupOfParam, closeAt, alone, expert, stage >= 1 ? dp.size() : 1,
        stage >= 1 ? experts.edp().size() : 1);
    this.hooks = dp.size() > 1 ? new ReadyHooks(this.params) : null;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Bucket b : layout.buckets()) {
        boolean ofExperts = expert[b.slots().get(0).param()];
        Communicator group = ofExperts ? experts.edp() : dp;
        BucketState s = new BucketState(b, group.rank(), stage, this.params, group, reduceType, clock);
        s.replicate = replicate;
        if (ofExperts) s.across = experts.ep();
        states.add(s);
        gathering.add(groupOfParam[b.slots().get(0).param()], s);
        if (hooks != null) for (Slot slot : b.slots()) hooks.add(slot.param(), s);
        if (dev.weft.spec.ParallelSpec.gradientsInFlatBuffer(dp.size(), stage)) s.bindGrads(); // no copy into the buffer after backward
      }
    }
  }

  public int stage() { return stage; }

  /**
   * Every parameter is used only inside a layer that calls {@link #awaitParams} first (what
   * {@link Zero3Layers} does): stages 1–2 then leave the post-step all-gather running and each layer
   * waits for its own bucket, instead of the step waiting for all of them.
   */
  public void gateByUnits() { this.paramsGated = true; }

  /** Stages 1–2, before {@code unit}'s forward: waits for its updated parameters to arrive. */
  public void awaitParams(int unit) {
    if (stage == 1 || stage == 2) for (BucketState s : gathering.bucketsOf(unit)) s.settleParams();
  }

  /** Stages 1–2: every bucket's updated parameters arrived (before reading or writing them wholesale). */
  private void settleAllParams() {
    for (BucketState s : states) s.settleParams();
  }

  /**
   * HSDP: {@code dp} (given at construction) is the shard group and {@code group} the ranks holding the same
   * shards; each gradient shard is all-reduced across it after the shard group's reduction, and only its
   * first rank writes the shards to checkpoints. Call before the first backward.
   */
  public void replicateOver(Communicator group) {
    this.replicate = group;
    for (BucketState s : states) if (s.across.size() == 1) s.replicate = group; // experts stay sharded over all of their edp
  }

  /** Pipeline group: other stages hold other parameters, so the gradient norm sums over it too. */
  public void pipelineGroup(Communicator pipeline) { this.pp = pipeline; }
  /** The Adam update of each shard: libtorch passes by default, the backend's fused kernel where it has one. */
  public void shardStep(ShardStep kernel) {
    this.shardStep.close();
    this.shardStep = kernel;
  }
  public FlatLayout layout() { return layout; }

  /**
   * Before the backward of micro-batch {@code micro} of {@code count}: whether its gradients are
   * reduced right away (always for stages 2–3; only on the last micro-batch for stages 0–1).
   */
  public void beforeBackward(int micro, int count) {
    if (hooks != null) hooks.before(micro, stage >= 2 || micro == count - 1);
  }

  /**
   * The data-parallel communication since the last call: the time blocked on gathers and reductions
   * (communication that compute did not hide) and what was issued.
   */
  public ZeroComm takeComm() { return clock.take(); }

  /** After a micro-batch's backward: waits for the reductions it launched (and launches any left over). */
  public void afterBackward(int micro, int count) {
    boolean sync = stage >= 2 || micro == count - 1;
    if (!sync) return;
    if (dp.size() == 1) {
      BucketPasses.localGradients(states, params, stage);
      if (stage == 3) releaseAll();
      return;
    }
    for (BucketState s : states) s.finish(micro);
    for (BucketState s : states) s.settleGradients(); // HSDP: the replicas' all-reduces overlap the later buckets' waits
    if (stage == 3) gathering.drainFetches();
  }

  /**
   * Sums over the tensor-parallel group the gradients of {@code partial} (replicated parameters that
   * each tp rank saw only for its slice of the sequence).
   */
  public void sumOverTp(List<Param> partial) { ShardGradients.sumOverTp(states, params, tp, partial); }

  /**
   * Global gradient norm (of the true gradients: divided by {@code lossScale}) over every shard of
   * every rank, the tp group and the pipeline group. Non-finite when any rank overflowed; every rank sees the same value.
   */
  public double gradNorm(double lossScale) {
    List<BucketState> counted = states.stream().filter(s -> !copies.contains(params.get(s.b.slots().get(0).param()).name())).toList();
    return ShardGradients.norm(counted, stage, dp, tp, pp, lossScale, experts);
  }

  /**
   * Replaces this rank's owned gradient elements of {@code names} by {@code sum}'s result (see
   * {@link ShardGradients#sumOwned}); a tied weight's stages sum theirs this way before the step.
   */
  public void sumOwned(Set<String> names, java.util.function.Consumer<Tensor> sum) {
    ShardGradients.sumOwned(states, params, names, sum);
  }

  /**
   * One optimizer step on this rank's shards. {@code gradScale} multiplies the stored gradients
   * (clipping factor ÷ loss scale). Then the updated parameters are all-gathered (stages 1–2).
   */
  public void step(double lr, double gradScale) {
    step++;
    OptimizerKind kind = OptimizerKind.of(train.optimizer());
    double b1 = train.beta1(), b2 = train.beta2(), wd = train.weightDecay(), eps = 1e-8;
    settleAllParams(); // a forward that skipped a layer left its gather unawaited
    try (NoGradGuard ng = new NoGradGuard()) {
      if (gradScale != 1.0) shardStep.unscale(states.stream().map(BucketState::ownedGrads).toList(), gradScale);
      BucketPasses.update(states, kind, new AdamArgs(step, lr, b1, b2, eps, wd, kind == OptimizerKind.ADAMW), shardStep, stage);
      if (stage == 1 || stage == 2) {
        // in forward order (buckets are in backward order): the first layer's parameters arrive first
        for (int i = states.size() - 1; i >= 0; i--) {
          BucketState s = states.get(i);
          s.paramGather = s.group().allGatherAsync(s.flat, s.ownedParams().clone());
          clock.gatherIssued(4 * s.b.padded());
        }
        if (!paramsGated) settleAllParams();
      }
    }
    if (stage == 3) {
      gathering.releaseAll(); // whole groups hold the parameters from before the update
      gathering.prefetchStart();
    }
  }

  /** Skips a step (overflow): drops the gradients. */
  public void discardGradients() {
    for (BucketState s : states) s.grad.zero_();
  }

  /** ZeRO-3: makes the full parameters of {@code unit} available (re-entrant). */
  public void gather(int unit) {
    if (stage == 3) gathering.gather(unit, UnitGathering.Pass.NONE);
  }

  /** ZeRO-3, before {@code unit}'s forward: its parameters whole, the next groups' fetches started. */
  public void gatherForward(int unit) {
    if (stage == 3) gathering.gather(unit, UnitGathering.Pass.FORWARD);
  }

  /** ZeRO-3, when backward reaches {@code unit}'s output: its parameters whole again, the previous groups' fetches started. */
  public void gatherBackward(int unit) {
    if (stage == 3) gathering.gather(unit, UnitGathering.Pass.BACKWARD);
  }

  /** ZeRO-3: {@code unit}'s forward is done; its group is dropped once forward leaves it. */
  public void release(int unit) {
    if (stage == 3) gathering.release(unit);
  }

  /** ZeRO-3: gather every unit (for a consistency check or a save), then {@link #releaseAll()}. */
  public void gatherAll() {
    settleAllParams();
    if (stage == 3) gathering.gatherAll();
  }

  public void releaseAll() {
    if (stage == 3) gathering.releaseAll();
  }

  /**
   * This rank's part of the training state, for checkpoints (see {@link ShardStateEntries}). The entries
   * are views: loading into them restores in place.
   */
  public List<StateEntry> stateEntries() {
    settleAllParams();
    List<StateEntry> all = ShardStateEntries.of(states, params, stage, tp.rank() == 0);
    if (copies.isEmpty()) return all;
    return all.stream().map(e -> copies.contains(e.name().substring(e.name().lastIndexOf('/') + 1))
        ? new StateEntry(e.name(), e.data(), e.slice(), false) : e).toList();
  }

  /** Optimizer steps taken (Adam's bias correction counts them). */
  public long stepCount() { return step; }
  public void restoreStepCount(long steps) { this.step = steps; }

  /** Every flat buffer this rank holds, by name ({@code bucket 3 grad}), for placement audits. */
  public Map<String, Tensor> buffers() { return BucketPasses.buffers(states); }

  public Memory memory() { return BucketPasses.memory(states, stage); }

  @Override
  public void close() {
    settleAllParams();
    if (hooks != null) hooks.clear();
    shardStep.close();
  }
}
