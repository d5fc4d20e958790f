package dev.weft.parallel.data;


import dev.weft.comm.Communicator;
import dev.weft.comm.PendingOp;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters.Param;
import dev.weft.parallel.data.FlatLayout.Bucket;
import dev.weft.parallel.data.FlatLayout.Slot;
import dev.weft.util.Tensors;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * One bucket of {@link ShardedOptimizer}: its flat buffers (parameters, gradients, Adam moments), the
 * range of them this rank owns, and its gradient reduction in flight. ZeRO-3's gather count and
 * prefetch live here too; {@link UnitGathering} drives them.
 */
final class BucketState {
  private final int stage;
  private final List<Param> params;
  private final Communicator dp;
  private final ScalarType reduceType;
  private final CommClock clock;
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
  PendingOp paramGather; // stages 1-2: the updated parameters on their way into flat
  boolean gradsBound;    // one rank, stages 0-1: the parameters' .grad are views of grad (bindGrads)
  Communicator replicate; // HSDP: the gradient shard is all-reduced across it after the shard group's reduction
  Communicator across = SOLO; // an expert bucket: the ep group, whose ranks hold the other experts (dp is then edp)
  private static final Communicator SOLO = new dev.weft.comm.SoloCommunicator("ep");
  private PendingOp replicating;

  BucketState(Bucket b, int rank, int stage, List<Param> params, Communicator dp, ScalarType reduceType, CommClock clock) {
    this.stage = stage;
    this.clock = clock;
    this.params = params;
    this.dp = dp;
    this.reduceType = reduceType;
    this.b = b;
    boolean sharded = stage >= 1;
    shardStart = sharded ? b.shardStart(rank) : 0;
    shardLen = sharded ? b.shard() : b.padded();
    Tensor full = Tensors.zerosLike(params.get(b.slots().get(0).param()).tensor(), b.padded());
    // the source views are closed at once: each shares the parameter's old storage, which set_data below would
    // otherwise leave alive until the garbage collector ran (a whole second copy of the model through setup and step 1)
    for (Slot s : b.slots()) {
      try (Tensor src = params.get(s.param()).tensor().detach(); Tensor row = src.reshape(-1);
           Tensor dst = full.narrow(0, s.offset(), s.numel())) {
        dst.copy_(row);
      }
    }
    if (stage == 3) {
      master = full.narrow(0, shardStart, shardLen).clone();
      full.close();
      flat = null;
      for (Slot s : b.slots()) params.get(s.param()).tensor().set_data(Tensors.zerosLike(params.get(s.param()).tensor(), 0));
    } else {
      master = null;
      flat = full;
      bindParams(full);
    }
    grad = Tensors.zerosLike(ownedParams(), stage >= 2 ? shardLen : b.padded());
    m = Tensors.zerosLike(ownedParams(), shardLen);
    v = Tensors.zerosLike(ownedParams(), shardLen);
    tpSharded = new boolean[b.slots().size()];
    for (int i = 0; i < tpSharded.length; i++) tpSharded[i] = params.get(b.slots().get(i).param()).isSharded();
  }

  /** The type gradients travel in ({@code precision.reduceDtype}). */
  static ScalarType wireType(String reduceDtype) {
    return switch (dev.weft.spec.PrecisionDtype.of(reduceDtype)) {
      case BF16 -> ScalarType.BFloat16;
      case FP16 -> ScalarType.Half;
      case FP32 -> ScalarType.Float;
    };
  }

  /** The ranks that hold this bucket's parameters and split its ZeRO state: dp, HSDP's shard group, or an expert's edp. */
  Communicator group() { return dp; }

  /** Points every parameter of the bucket at its slice of {@code buffer}. */
  void bindParams(Tensor buffer) {
    for (Slot s : b.slots()) {
      Param p = params.get(s.param());
      p.tensor().set_data(buffer.narrow(0, s.offset(), s.numel()).view(p.localShape()));
    }
  }

  /**
   * One rank, stages 0-1: every parameter's {@code .grad} becomes its slice of {@link #grad}, so backward accumulates
   * straight into the buffer (nothing copied after it); the buffer is then zeroed after each update instead of overwritten.
   */
  void bindGrads() {
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Slot s : b.slots()) bindGrad(s);
    }
    gradsBound = true;
  }

  void bindGrad(Slot s) {
    Param p = params.get(s.param());
    p.tensor().mutable_grad().put(grad.narrow(0, s.offset(), s.numel()).view(p.localShape()));
  }

  /** The parameter elements this rank updates. */
  Tensor ownedParams() { return stage == 3 ? master : flat.narrow(0, shardStart, shardLen); }

  /** The gradient elements this rank owns. */
  Tensor ownedGrads() { return stage >= 2 ? grad : grad.narrow(0, shardStart, shardLen); }

  /** Counts one more of the bucket's gradients accumulated; true when they all are. */
  boolean oneReady() { return ++ready == b.slots().size(); }

  /** The elements of {@code slot} inside this rank's shard, as a view of the shard-sized {@code shardBuffer}; null when none. */
  Tensor ownedPart(Slot slot, Tensor shardBuffer) {
    long lo = ownedLo(slot), hi = ownedHi(slot);
    return hi <= lo ? null : shardBuffer.narrow(0, lo - shardStart, hi - lo);
  }

  long ownedLo(Slot slot) { return Math.max(slot.offset(), shardStart); }

  long ownedHi(Slot slot) { return Math.min(slot.offset() + slot.numel(), shardStart + shardLen); }

  void launch(int microBatch) {
    launchedFor = microBatch;
    Tensor full = stage >= 2 ? Tensors.zerosLike(grad, b.padded()) : grad;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Slot s : b.slots()) {
        Tensor p = params.get(s.param()).tensor();
        Tensor g = p.grad();
        Tensor dst = full.narrow(0, s.offset(), s.numel());
        if (g.defined()) dst.copy_(g.reshape(-1));
        else dst.zero_();
        if (g.defined()) p.mutable_grad().reset(); // the flat buffer holds it now
      }
      int ranks = dp.size() * replicate.size() * across.size(); // the mean over every data-parallel rank, replicas included
      if (ranks > 1) full.mul_(new Scalar(1.0 / ranks));
    }
    Tensor wire = reduceType == ScalarType.Float ? full : full.to(reduceType);
    if (dp.size() > 1) clock.reductionIssued(wire.numel() * wire.element_size()); // an expert's edp of one rank sends nothing
    if (stage >= 2) {
      inflightShard = Tensors.emptyLike(wire, wire.scalar_type(), shardLen);
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

  /** Stages 1–2: waits for the bucket's updated parameters (all-gathered after the step) before anyone reads them. */
  void settleParams() {
    if (paramGather == null) return;
    clock.await(CommClock.Wait.PARAM_GATHER, paramGather);
    paramGather = null;
  }

  /** ZeRO-3: points the parameters at nothing again, unless a forward still uses them. */
  void dropFull() {
    if (flat == null || (gathered > 0 && pending == null)) return;
    for (Slot slot : b.slots()) params.get(slot.param()).tensor().set_data(Tensors.zerosLike(flat, 0));
    flat.releaseReference(); // held since its fetch began (UnitGathering)
    flat = null;
    gathered = 0;
  }

  /** Waits for the shard group's reduction; under HSDP starts the all-reduce of the shard across the replicate group. */
  void finish(int microBatch) {
    if (launchedFor != microBatch || pending == null) launch(microBatch);
    clock.await(CommClock.Wait.REDUCE, pending);
    pending = null;
    ready = 0;
    if (replicate.size() > 1) {
      Tensor shard = stage >= 2 ? inflightShard : grad.narrow(0, shardStart, shardLen); // stage 1 updates only its shard
      replicating = replicate.allReduceAsync(shard, ReduceOp.SUM);
      clock.replicationIssued(shard.numel() * shard.element_size());
    }
  }

  /** After {@link #finish}: the shard is reduced over every replica; stages 2–3 add it to the accumulated gradients. */
  void settleGradients() {
    if (replicating != null) {
      clock.await(CommClock.Wait.REDUCE, replicating);
      replicating = null;
    }
    if (stage >= 2) {
      grad.add_(inflightShard.to(ScalarType.Float));
      inflightShard = null;
    }
  }
}
