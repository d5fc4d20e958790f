package dev.weft.parallel.data;

import dev.weft.optim.AdamArgs;
import dev.weft.optim.ShardStep;
import static org.bytedeco.pytorch.global.torch.zeros;

import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters.Param;
import dev.weft.parallel.data.FlatLayout.Bucket;
import dev.weft.parallel.data.FlatLayout.Slot;
import dev.weft.spec.TrainSpec;
import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.FunctionPostHook;
import org.bytedeco.pytorch.Node;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Data-parallel gradient reduction and a fused optimizer over flat, sharded buffers: ZeRO stages 0–3.
 *
 * <ul>
 *   <li>Stage 0: gradients all-reduced in buckets as they fill; every rank updates everything.
 *   <li>Stage 1: the same reduction; each rank keeps and updates only its shard of the optimizer
 *       state, then the updated parameters are all-gathered (straight into the flat buffer that the
 *       parameters are views of).
 *   <li>Stage 2: each bucket is reduce-scattered into its owner's gradient shard as it fills (every
 *       micro-batch) and the full gradients are dropped.
 *   <li>Stage 3: parameters live only as shards; {@link #gather} / {@link #release} bring a unit's
 *       full parameters in just before use and drop them after (see {@link Zero3Layers}).
 * </ul>
 *
 * The optimizer step is a handful of vectorised passes per bucket shard (AdamW, Adam or SGD),
 * with global-norm clipping computed over shards and ranks, and loss-scale unscaling folded into it.
 * Buffers, hooks and AccumulateGrad nodes are owned here; construct outside any PointerScope.
 */
public final class ShardedOptimizer implements AutoCloseable {
  /** Bytes this rank holds for parameters, gradients and optimizer state. */
  public record Memory(long parameterBytes, long gradientBytes, long optimizerBytes) {}

  private final int stage;
  private final Communicator dp;
  private final Communicator tp;
  private Communicator pp;
  private ShardStep shardStep = ShardStep.LIBTORCH;
  private final TrainSpec train;
  private final ScalarType reduceType;
  private final List<Param> params;
  private final FlatLayout layout;
  private final List<State> states = new ArrayList<>();
  private final Map<Integer, List<State>> unitStates = new HashMap<>();
  private final List<Object> keepAlive = new ArrayList<>();
  private boolean syncEnabled = true;
  private long step;

  private final class State {
    final Bucket b;
    final long shardStart;
    final long shardLen;
    Tensor flat;          // stages 0-2: the full parameter buffer, params are views of it; stage 3: while gathered
    final Tensor master;  // stage 3: this rank's parameter shard
    final Tensor grad;    // stages 0-1: full reduced gradients; stages 2-3: this rank's accumulated shard
    final Tensor m;
    final Tensor v;
    final boolean[] tpSharded; // per slot: is the parameter split across tensor-parallel ranks
    int ready;
    int launchedFor = -1;
    PendingOp pending;
    Tensor inflightShard;
    int gathered;         // stage 3: how many users hold the full parameters
    Tensor incoming;      // stage 3: full parameters being fetched ahead of use
    PendingOp fetching;

    State(Bucket b, int rank) {
      this.b = b;
      boolean sharded = stage >= 1;
      shardStart = sharded ? b.shardStart(rank) : 0;
      shardLen = sharded ? b.shard() : b.padded();
      Tensor full = zeros(b.padded());
      for (Slot s : b.slots()) full.narrow(0, s.offset(), s.numel()).copy_(params.get(s.param()).tensor().detach().reshape(-1));
      if (stage == 3) {
        master = full.narrow(0, shardStart, shardLen).clone();
        full.close();
        flat = null;
        for (Slot s : b.slots()) params.get(s.param()).tensor().set_data(torch.empty(0));
      } else {
        master = null;
        flat = full;
        bindParams(full);
      }
      grad = zeros(stage >= 2 ? shardLen : b.padded());
      m = zeros(shardLen);
      v = zeros(shardLen);
      tpSharded = new boolean[b.slots().size()];
      for (int i = 0; i < tpSharded.length; i++) tpSharded[i] = params.get(b.slots().get(i).param()).isSharded();
    }

    /** Points every parameter of the bucket at its slice of {@code buffer}. */
    void bindParams(Tensor buffer) {
      for (Slot s : b.slots()) {
        Param p = params.get(s.param());
        p.tensor().set_data(buffer.narrow(0, s.offset(), s.numel()).view(p.localShape()));
      }
    }

    /** The parameter elements this rank updates. */
    Tensor ownedParams() { return stage == 3 ? master : flat.narrow(0, shardStart, shardLen); }

    /** The gradient elements this rank owns. */
    Tensor ownedGrads() { return stage >= 2 ? grad : grad.narrow(0, shardStart, shardLen); }

    void onReady(int microBatch) {
      if (!syncEnabled) return;
      if (++ready == b.slots().size()) launch(microBatch);
    }

    void launch(int microBatch) {
      launchedFor = microBatch;
      Tensor full = stage >= 2 ? zeros(b.padded()) : grad;
      try (NoGradGuard ng = new NoGradGuard()) {
        for (Slot s : b.slots()) {
          Tensor p = params.get(s.param()).tensor();
          Tensor g = p.grad();
          Tensor dst = full.narrow(0, s.offset(), s.numel());
          if (g.defined()) dst.copy_(g.reshape(-1));
          else dst.zero_();
          if (g.defined()) p.mutable_grad().reset(); // the flat buffer holds it now
        }
        if (dp.size() > 1) full.mul_(new Scalar(1.0 / dp.size()));
      }
      Tensor wire = reduceType == ScalarType.Float ? full : full.to(reduceType);
      if (stage >= 2) {
        inflightShard = Tensors.empty(wire.scalar_type(), shardLen);
        pending = dp.reduceScatterAsync(inflightShard, wire);
      } else {
        pending = dp.allReduceAsync(wire, ReduceOp.SUM);
        if (wire != full) {
          PendingOp p = pending;
          boolean scoped = wire.referenceCount() > 0;
          if (scoped) wire.retainReference(); // outlive the hook's PointerScope until copied back
          pending = () -> {
            p.await();
            full.copy_(wire);
            if (scoped) wire.releaseReference();
          };
        }
      }
      if (stage == 3) dropFull(); // its gradients are packed: backward no longer needs the full parameters
    }

    /** ZeRO-3: points the parameters at nothing again, unless a forward still uses them. */
    void dropFull() {
      if (flat == null || (gathered > 0 && pending == null)) return;
      for (Slot slot : b.slots()) params.get(slot.param()).tensor().set_data(torch.empty(0));
      flat = null;
      gathered = 0;
    }

    void finish(int microBatch) {
      if (launchedFor != microBatch || pending == null) launch(microBatch);
      pending.await();
      pending = null;
      ready = 0;
      if (stage >= 2) {
        grad.add_(inflightShard.to(ScalarType.Float));
        inflightShard = null;
      }
    }
  }

  /**
   * @param units unit id per parameter (layer, for ZeRO-3 gathering); buckets never span units
   * @param bucketElements target bucket size in elements
   */
  public ShardedOptimizer(int stage, List<Param> params, int[] units, Communicator dp, Communicator tp, TrainSpec train,
                          String reduceDtype, long bucketElements) {
    this.stage = stage;
    this.dp = dp;
    this.tp = tp;
    this.train = train;
    this.reduceType = switch (reduceDtype) {
      case "bf16" -> ScalarType.BFloat16;
      case "fp16" -> ScalarType.Half;
      default -> ScalarType.Float;
    };
    this.params = List.copyOf(params);
    long[] numels = params.stream().mapToLong(Param::numel).toArray();
    this.layout = FlatLayout.plan(numels, units, bucketElements, stage >= 1 ? dp.size() : 1);
    // AccumulateGrad nodes record the parameter's shape when created: hook them while parameters are whole
    Map<Integer, Node> nodes = new HashMap<>();
    if (dp.size() > 1) {
      for (int i = 0; i < params.size(); i++) {
        Tensor p = params.get(i).tensor();
        nodes.put(i, p.expand_as(p).grad_fn().next_edge(0).function());
      }
    }
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Bucket b : layout.buckets()) {
        State s = new State(b, dp.rank());
        states.add(s);
        unitStates.computeIfAbsent(units[b.slots().get(0).param()], k -> new ArrayList<>()).add(s);
        for (Slot slot : b.slots()) if (nodes.containsKey(slot.param())) hook(nodes.get(slot.param()), s);
      }
    }
  }

  private int currentMicro;

  private void hook(Node acc, State s) {
    FunctionPostHook h = new FunctionPostHook() {
      @Override
      public TensorVector apply(TensorVector outputs, TensorVector inputs) {
        s.onReady(currentMicro);
        return outputs;
      }
    };
    acc.add_post_hook(h);
    keepAlive.add(acc);
    keepAlive.add(h);
  }

  public int stage() { return stage; }

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
    currentMicro = micro;
    syncEnabled = stage >= 2 || micro == count - 1;
    if (dp.size() == 1) syncEnabled = false;
  }

  private long waitNanos;

  /** Time spent waiting for gradient reductions since the last call (communication not hidden by backward). */
  public long takeWaitNanos() {
    long w = waitNanos;
    waitNanos = 0;
    return w;
  }

  /** After a micro-batch's backward: waits for the reductions it launched (and launches any left over). */
  public void afterBackward(int micro, int count) {
    long t0 = System.nanoTime();
    try {
      finishBackward(micro, count);
    } finally {
      waitNanos += System.nanoTime() - t0;
    }
  }

  private void finishBackward(int micro, int count) {
    boolean sync = stage >= 2 || micro == count - 1;
    if (!sync) return;
    if (dp.size() == 1) {
      localGradients();
      if (stage == 3) {
        for (State s : states) s.gathered = Math.min(s.gathered, 1);
        releaseAll();
        drainFetches();
      }
      return;
    }
    for (State s : states) s.finish(micro);
    if (stage == 3) drainFetches();
  }

  /** Single rank: move gradients into the flat buffers without communication. */
  private void localGradients() {
    try (NoGradGuard ng = new NoGradGuard()) {
      for (State s : states) {
        for (Slot slot : s.b.slots()) {
          Tensor p = params.get(slot.param()).tensor();
          Tensor g = p.grad();
          Tensor dst = s.grad.narrow(0, slot.offset(), slot.numel()); // one rank: its shard is the whole bucket
          if (g.defined()) {
            if (stage >= 2) dst.add_(g.reshape(-1));
            else dst.copy_(g.reshape(-1));
            p.mutable_grad().reset();
          } else if (stage < 2) {
            dst.zero_();
          }
        }
      }
    }
  }

  /**
   * Sums over the tensor-parallel group the gradients of {@code partial} (replicated parameters that
   * each tp rank saw only for its slice of the sequence). Every tp rank has the same bucket layout,
   * so the owned ranges line up.
   */
  public void sumOverTp(List<Param> partial) {
    if (partial.isEmpty() || tp.size() == 1) return;
    java.util.Set<String> names = new java.util.HashSet<>();
    for (Param p : partial) names.add(p.name());
    try (NoGradGuard ng = new NoGradGuard()) {
      TensorVector pieces = new TensorVector();
      List<Tensor> targets = new ArrayList<>();
      for (State s : states) {
        Tensor owned = s.ownedGrads();
        for (Slot slot : s.b.slots()) {
          if (!names.contains(params.get(slot.param()).name())) continue;
          long lo = Math.max(slot.offset(), s.shardStart), hi = Math.min(slot.offset() + slot.numel(), s.shardStart + s.shardLen);
          if (hi <= lo) continue;
          Tensor t = owned.narrow(0, lo - s.shardStart, hi - lo);
          targets.add(t);
          pieces.push_back(t);
        }
      }
      if (targets.isEmpty()) {
        tp.allReduce(zeros(1), ReduceOp.SUM); // keep the collective sequence equal on every tp rank
        return;
      }
      Tensor flat = torch.cat(pieces);
      tp.allReduce(flat, ReduceOp.SUM);
      long off = 0;
      for (Tensor t : targets) {
        t.copy_(flat.narrow(0, off, t.numel()));
        off += t.numel();
      }
    }
  }

  /**
   * Global gradient norm (of the true gradients: divided by {@code lossScale}) over every shard of
   * every rank. Tensor-parallel split elements are summed over the tp group, replicated ones are
   * counted once. Non-finite when any rank overflowed; every rank sees the same value.
   */
  public double gradNorm(double lossScale) {
    try (NoGradGuard ng = new NoGradGuard()) {
      // one float32 dot product per run of same-kind slots, summed in double once: no read-back per parameter
      TensorVector split = new TensorVector(), whole = new TensorVector();
      for (State s : states) {
        Tensor owned = s.ownedGrads();
        int i = 0, n = s.b.slots().size();
        while (i < n) {
          boolean kind = s.tpSharded[i];
          long lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
          for (; i < n && s.tpSharded[i] == kind; i++) {
            Slot slot = s.b.slots().get(i);
            lo = Math.min(lo, Math.max(slot.offset(), s.shardStart));
            hi = Math.max(hi, Math.min(slot.offset() + slot.numel(), s.shardStart + s.shardLen));
          }
          if (hi <= lo) continue;
          Tensor run = owned.narrow(0, lo - s.shardStart, hi - lo);
          (kind ? split : whole).push_back(run.dot(run).reshape(1));
        }
      }
      Tensor sums = Tensors.ofDoubles(sumOf(split), sumOf(whole));
      if (stage >= 1) dp.allReduce(sums, ReduceOp.SUM);
      Tensor splitT = sums.narrow(0, 0, 1).clone();
      tp.allReduce(splitT, ReduceOp.SUM);
      Tensor both = Tensors.ofDoubles(splitT.item_double(), sums.narrow(0, 1, 1).item_double());
      if (pp != null) pp.allReduce(both, ReduceOp.SUM);
      double total = both.sum().item_double();
      return Math.sqrt(total) / lossScale;
    }
  }

  private static double sumOf(TensorVector parts) {
    return parts.size() == 0 ? 0 : torch.cat(parts).to(ScalarType.Double).sum().item_double();
  }

  /**
   * One optimizer step on this rank's shards. {@code gradScale} multiplies the stored gradients
   * (clipping factor ÷ loss scale). Then the updated parameters are all-gathered (stages 1–2).
   */
  public void step(double lr, double gradScale) {
    step++;
    double b1 = train.beta1(), b2 = train.beta2(), wd = train.weightDecay(), eps = 1e-8;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (State s : states) {
        Tensor p = s.ownedParams(), g = s.ownedGrads();
        if (gradScale != 1.0) g.mul_(new Scalar(gradScale));
        switch (train.optimizer()) {
          case "adamw", "adam" -> shardStep.adam(
              new AdamArgs(step, lr, b1, b2, eps, wd, "adamw".equals(train.optimizer())), p, g, s.m, s.v);
          case "sgd" -> {
            if (wd > 0) g.add_(p, new Scalar(wd));
            s.m.mul_(new Scalar(b1)).add_(g);
            p.add_(s.m, new Scalar(-lr));
          }
          default -> throw new IllegalStateException("unknown optimizer " + train.optimizer());
        }
        s.grad.zero_();
      }
      if (stage == 1 || stage == 2) {
        List<PendingOp> gathers = new ArrayList<>();
        for (State s : states) gathers.add(dp.allGatherAsync(s.flat, s.ownedParams().clone()));
        gathers.forEach(PendingOp::await);
      }
    }
  }

  /** Skips a step (overflow): drops the gradients. */
  public void discardGradients() {
    for (State s : states) s.grad.zero_();
  }

  /** ZeRO-3: makes the full parameters of {@code unit} available (re-entrant). */
  public void gather(int unit) { gather(unit, -1); }

  /**
   * ZeRO-3: makes the full parameters of {@code unit} available (re-entrant) and starts fetching
   * those of {@code next} (the unit expected to run after it; -1 for none), so that all-gather runs
   * while this unit computes.
   */
  public void gather(int unit, int next) {
    if (stage != 3) return;
    for (State s : unitStates.getOrDefault(unit, List.of())) {
      if (s.gathered++ == 0) ensureFull(s);
    }
    for (State s : unitStates.getOrDefault(next, List.of())) startFetch(s);
  }

  private void startFetch(State s) {
    if (s.flat != null || s.fetching != null) return;
    try (NoGradGuard ng = new NoGradGuard()) {
      s.incoming = zeros(s.b.padded());
      s.fetching = dp.allGatherAsync(s.incoming, s.master);
    }
  }

  /** Binds the bucket's parameters to its full data, waiting for a fetch already in flight. */
  private void ensureFull(State s) {
    if (s.flat != null) return;
    startFetch(s);
    s.fetching.await();
    s.flat = s.incoming;
    s.incoming = null;
    s.fetching = null;
    s.bindParams(s.flat);
  }

  /** Fetches nobody consumed (the step ended first) are waited for and dropped. */
  private void drainFetches() {
    for (State s : states) {
      if (s.fetching == null) continue;
      s.fetching.await();
      s.fetching = null;
      s.incoming = null;
    }
  }

  /** ZeRO-3: drops the full parameters of {@code unit} once nobody uses them. */
  public void release(int unit) {
    if (stage != 3) return;
    for (State s : unitStates.getOrDefault(unit, List.of())) {
      if (s.gathered == 0 || --s.gathered > 0) continue;
      s.dropFull();
    }
  }


  /** ZeRO-3: gather every unit (for a consistency check or a save), then {@link #releaseAll()}. */
  public void gatherAll() {
    for (Integer u : unitStates.keySet()) gather(u);
  }

  public void releaseAll() {
    for (Integer u : unitStates.keySet()) release(u);
  }

  /**
   * This rank's part of the training state, for checkpoints: parameters and Adam moments as slices
   * of the global tensors (the tensor-parallel box, and under ZeRO the flat range this rank owns).
   * Each slice is written by exactly one rank: data-parallel replicas by dp rank 0, tensors every
   * tp rank holds whole by tp rank 0. The entries are views: loading into them restores in place.
   */
  public List<dev.weft.checkpoint.StateEntry> stateEntries() {
    List<dev.weft.checkpoint.StateEntry> out = new ArrayList<>();
    boolean dpWriter = dp.rank() == 0, tpWriter = tp.rank() == 0;
    for (State s : states) {
      for (Slot slot : s.b.slots()) {
        Param p = params.get(slot.param());
        boolean tpWrites = p.isSharded() || tpWriter;
        var box = dev.weft.checkpoint.TensorSlice.of(p);
        if (stage == 3) {
          owned(s, slot, box, "model/" + p.name(), s.master, tpWrites, out);
        } else {
          Tensor whole = s.flat.narrow(0, slot.offset(), slot.numel());
          out.add(new dev.weft.checkpoint.StateEntry("model/" + p.name(), whole, box, dpWriter && tpWrites));
        }
        if (stage == 0) {
          out.add(new dev.weft.checkpoint.StateEntry("optim/exp_avg/" + p.name(), s.m.narrow(0, slot.offset(), slot.numel()), box, dpWriter && tpWrites));
          out.add(new dev.weft.checkpoint.StateEntry("optim/exp_avg_sq/" + p.name(), s.v.narrow(0, slot.offset(), slot.numel()), box, dpWriter && tpWrites));
        } else {
          owned(s, slot, box, "optim/exp_avg/" + p.name(), s.m, tpWrites, out);
          owned(s, slot, box, "optim/exp_avg_sq/" + p.name(), s.v, tpWrites, out);
        }
      }
    }
    return out;
  }

  /** The part of {@code slot} inside this rank's shard, taken from a shard-sized buffer. */
  private static void owned(State s, Slot slot, dev.weft.checkpoint.TensorSlice box, String name, Tensor shardBuffer,
                            boolean write, List<dev.weft.checkpoint.StateEntry> out) {
    long lo = Math.max(slot.offset(), s.shardStart), hi = Math.min(slot.offset() + slot.numel(), s.shardStart + s.shardLen);
    if (hi <= lo) return;
    out.add(new dev.weft.checkpoint.StateEntry(name, shardBuffer.narrow(0, lo - s.shardStart, hi - lo),
        box.flatRange(lo - slot.offset(), hi - lo), write));
  }

  /** Optimizer steps taken (Adam's bias correction counts them). */
  public long stepCount() { return step; }

  public void restoreStepCount(long steps) { this.step = steps; }

  public Memory memory() {
    long p = 0, g = 0, o = 0;
    for (State s : states) {
      p += 4 * (stage == 3 ? s.shardLen : s.b.padded());
      g += 4 * s.grad.numel();
      o += 4 * (s.m.numel() + s.v.numel());
    }
    return new Memory(p, g, o);
  }

  @Override
  public void close() {
    keepAlive.clear();
    shardStep.close();
  }
}
