package dev.weft.parallel.pipeline;

import dev.weft.error.WeftException;
import dev.weft.comm.PendingOp;
import dev.weft.models.DeferredWeightGrads;
import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.BoolOptional;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorArrayRefOptional;

/** One step of one stage: the mutable state of running an action list. Used once. */
final class StepRun {
  /** A tensor waiting between two actions: {@code activation} or gradient, for (micro-batch, chunk). */
  private record Key(boolean activation, int microBatch, int chunk) {}

  /**
   * What a forward leaves for its backward; {@code output} is null when recomputing, {@code deferred}
   * (the linears' inputs, for W) null unless the backward is split and the module lists its parameters.
   */
  private record Kept(Tensor input, Tensor output, long bytes, DeferredWeightGrads deferred) {}

  private record Posted(Tensor tensor, PendingOp op) {}

  /** A backward's start: what the forward kept, the graph's root, the gradient seeding it (null for the loss). */
  private record Seed(Kept kept, Tensor root, Tensor grad) {}

  private final PipelineExecutor x;
  private final Schedule s;
  private final int stage;
  private final List<Action> actions;
  private final HeldTensors held = new HeldTensors();
  private final Map<Key, Tensor> inbox = new HashMap<>();
  private final Map<Key, Tensor> outbox = new HashMap<>();
  private final Map<Key, Kept> kept = new HashMap<>();
  private final Map<Key, Seed> awaitingWeights = new HashMap<>(); // B done, W to come: the graph is retained
  private final Map<Key, WeightPass> awaitingLinears = new HashMap<>(); // B done, W to come: only dY and X kept
  private final List<DeferredWeightGrads> recordings = new ArrayList<>(); // closed at the end, whatever happened
  private final List<Tensor> trainable; // null: the module does not list them, or the backward is not split
  private final Map<Integer, Posted> receives = new HashMap<>();
  private final List<Posted> sends = new ArrayList<>();
  private final Map<Action.Kind, Integer> nextReceive = new EnumMap<>(Action.Kind.class);
  private final Double[] losses;
  private final int[] lastBackwardOfChunk;
  private final List<Timeline.Event> events = new ArrayList<>();
  private long keptBytes;
  private long peakBytes;

  StepRun(PipelineExecutor x) {
    this.x = x;
    this.s = x.schedule;
    this.stage = x.stage();
    this.actions = s.actions(stage);
    this.losses = new Double[s.microBatches()];
    this.lastBackwardOfChunk = new int[s.virtualStages()];
    for (int i = 0; i < actions.size(); i++) {
      if (actions.get(i).kind().producesWeightGradient()) lastBackwardOfChunk[actions.get(i).chunk()] = i;
    }
    // a V puts the embedding and a tied head (one parameter) in two chunks of stage 0: a per-chunk count would see it twice
    if (s.layout() == ChunkLayout.V) Arrays.fill(lastBackwardOfChunk, Arrays.stream(lastBackwardOfChunk).max().orElse(0));
    boolean split = actions.stream().anyMatch(a -> a.kind() == Action.Kind.BACKWARD_WEIGHT);
    this.trainable = split ? x.module.trainableParameters().orElse(null) : null;
  }

  StepResult run() {
    try (PointerScope step = new PointerScope(); held) {
      long t0 = System.nanoTime();
      for (int i = 0; i < actions.size(); i++) {
        Action a = actions.get(i);
        prePostReceives(i);
        long a0 = System.nanoTime();
        try {
          if (a.kind().isCompute()) {
            try (PointerScope perAction = new PointerScope()) {
              execute(i, a);
            }
          } else {
            execute(i, a); // not scoped: the communicator's pending work must outlive the action
          }
        } catch (WeftException e) {
          throw e;
        } catch (RuntimeException e) {
          throw new WeftException("pipeline stage " + stage + " failed at action " + i + " " + a + " of schedule " + s.name()
              + ": " + e.getMessage(), e);
        }
        events.add(new Timeline.Event(a, a0, System.nanoTime()));
      }
      for (Posted p : sends) p.op().await();
      long t1 = System.nanoTime();
      List<Double> ls = Arrays.stream(losses).filter(java.util.Objects::nonNull).toList();
      return new StepResult(stage, ls, new Timeline(stage, t0, t1, events), peakBytes);
    } finally {
      recordings.forEach(DeferredWeightGrads::close);
    }
  }

  /**
   * Posts the next receive of each direction ahead of time, so data lands while this stage
   * computes. Safe: a posted receive never blocks, and its tag matches only its own send.
   */
  private void prePostReceives(int from) {
    for (Action.Kind kind : new Action.Kind[] {Action.Kind.RECV_ACT, Action.Kind.RECV_GRAD}) {
      int j = Math.max(from, nextReceive.getOrDefault(kind, 0));
      while (j < actions.size() && actions.get(j).kind() != kind) j++;
      nextReceive.put(kind, j);
      if (j < actions.size() && !receives.containsKey(j)) {
        Action a = actions.get(j);
        int vs = s.virtualStage(stage, a.chunk());
        Tensor buf = held.keep(Tensors.empty(x.device.torch(), x.dtype, x.shape.shape(a.microBatch(), kind == Action.Kind.RECV_ACT ? vs : vs + 1)));
        receives.put(j, new Posted(buf, x.pp.recvAsync(buf, a.peer(), TransferTags.of(a, s, stage))));
      }
    }
  }

  private void execute(int i, Action a) {
    switch (a.kind()) {
      case RECV_ACT, RECV_GRAD -> {
        Posted p = receives.remove(i);
        p.op().await();
        inbox.put(new Key(a.kind() == Action.Kind.RECV_ACT, a.microBatch(), a.chunk()), p.tensor());
      }
      case SEND_ACT, SEND_GRAD -> {
        Tensor t = outbox.remove(new Key(a.kind() == Action.Kind.SEND_ACT, a.microBatch(), a.chunk()));
        sends.add(new Posted(t, x.pp.sendAsync(t, a.peer(), TransferTags.of(a, s, stage))));
      }
      case FORWARD -> forward(a.microBatch(), a.chunk());
      case BACKWARD -> {
        x.backwardListener.beforeBackward(a.microBatch(), a.chunk(), lastBackwardOfChunk[a.chunk()] == i);
        Seed seed = seed(a.microBatch(), a.chunk());
        fill(seed);
        sendInputGradient(a.microBatch(), a.chunk(), seed.kept().input().grad());
        release(seed);
      }
      case BACKWARD_INPUT -> inputGradient(a.microBatch(), a.chunk());
      case BACKWARD_WEIGHT -> {
        // the parameters receive their gradients here: data-parallel buckets count this, not B
        x.backwardListener.beforeBackward(a.microBatch(), a.chunk(), lastBackwardOfChunk[a.chunk()] == i);
        Key k = new Key(true, a.microBatch(), a.chunk());
        WeightPass w = awaitingLinears.remove(k);
        if (w == null) {
          Seed seed = awaitingWeights.remove(k);
          fill(seed);
          release(seed);
        } else {
          w.fill(held);
          keptBytes -= w.bytes();
        }
      }
      default -> throw new IllegalStateException(a.toString());
    }
  }

  private void forward(int mb, int chunk) {
    int vs = s.virtualStage(stage, chunk);
    Tensor input;
    if (vs == 0) {
      input = held.keep(x.inputs.apply(mb));
    } else {
      Tensor arrived = take(new Key(true, mb, chunk));
      input = held.keep(arrived.detach());
      held.drop(arrived);
      input.requires_grad_(true);
    }
    Tensor out;
    // virtual stage 0 sends no gradient upstream: its B is empty and its W the whole backward, as before
    DeferredWeightGrads deferred = trainable != null && vs > 0 ? DeferredWeightGrads.record() : null;
    if (deferred != null) recordings.add(deferred);
    if (x.recompute) { // never with a split backward (the builder refuses it): no recording is open
      try (NoGradGuard noGrad = new NoGradGuard()) {
        out = compute(chunk, input, mb);
      }
    } else {
      try {
        out = held.keep(compute(chunk, input, mb));
      } finally {
        if (deferred != null) deferred.stop();
      }
    }
    long bytes = input.nbytes() + (x.recompute ? 0 : out.nbytes() + x.module.savedBytes(chunk, input.sizes().vec().get()));
    kept.put(new Key(true, mb, chunk), new Kept(input, x.recompute ? null : out, bytes, deferred));
    keptBytes += bytes;
    peakBytes = Math.max(peakBytes, keptBytes);
    if (s.isLast(stage, chunk)) {
      losses[mb] = out.item_double();
    } else {
      Tensor act = out.detach().contiguous();
      checkShape(act, mb, vs + 1, chunk);
      handOn(true, mb, chunk, vs + 1, act);
    }
  }

  /** The backward's root and seed: the loss over the micro-batch count on the last virtual stage, else the output and its received gradient. */
  private Seed seed(int mb, int chunk) {
    Kept k = kept.remove(new Key(true, mb, chunk));
    Tensor out = k.output();
    if (x.recompute) {
      out = compute(chunk, k.input(), mb);
      long recomputed = out.nbytes() + x.module.savedBytes(chunk, k.input().sizes().vec().get());
      peakBytes = Math.max(peakBytes, keptBytes + recomputed);
    }
    if (s.isLast(stage, chunk)) return new Seed(k, held.keep(out.div(new Scalar((double) s.microBatches()))), null);
    return new Seed(k, out, take(new Key(false, mb, chunk)));
  }

  /** Runs the whole backward from the seed: parameter gradients accumulate, the graph is freed. */
  private void fill(Seed seed) {
    if (seed.grad() == null) seed.root().backward();
    else seed.root().backward(seed.grad(), new BoolOptional(), false, new TensorArrayRefOptional());
  }

  /**
   * B: the stage input's gradient, sent upstream at once. When the module lists its parameters the graph
   * runs once ({@link WeightPass}) and only the linears' inputs and output gradients wait for W; else
   * the graph is retained and W runs its whole backward again.
   */
  private void inputGradient(int mb, int chunk) {
    Seed seed = seed(mb, chunk);
    Key k = new Key(true, mb, chunk);
    if (seed.kept().deferred() == null) {
      if (s.virtualStage(stage, chunk) > 0) sendInputGradient(mb, chunk, WeightPass.inputOnly(seed.root(), seed.grad(), seed.kept().input()));
      awaitingWeights.put(k, seed);
      return;
    }
    WeightPass.Split b = WeightPass.inputPass(seed.root(), seed.grad(), seed.kept().input(), trainable, seed.kept().deferred(), held);
    sendInputGradient(mb, chunk, b.inputGrad());
    release(seed);
    keptBytes += b.weights().bytes();
    peakBytes = Math.max(peakBytes, keptBytes);
    awaitingLinears.put(k, b.weights());
  }

  private void sendInputGradient(int mb, int chunk, Tensor g) {
    int vs = s.virtualStage(stage, chunk);
    if (vs == 0) return;
    if (g == null || !g.defined()) {
      throw new WeftException("chunk " + chunk + " of stage " + stage + " did not use its input: no gradient to send upstream; "
          + "the module's forward must compute its output from the input it is given");
    }
    handOn(false, mb, chunk, vs - 1, g.detach());
  }

  /** The micro-batch's backward is over on this chunk: its activations and seed go. */
  private void release(Seed seed) {
    keptBytes -= seed.kept().bytes();
    held.drop(seed.grad());
    held.drop(seed.kept().input());
    held.drop(seed.kept().output());
    if (seed.grad() == null) held.drop(seed.root());
  }

  /** The module's forward, followed on the last virtual stage by the loss hook. */
  private Tensor compute(int chunk, Tensor input, int mb) {
    Tensor out = x.module.forward(chunk, input, mb);
    if (!s.isLast(stage, chunk)) return out;
    Tensor l = x.loss.loss(out, mb);
    if (l.numel() != 1) {
      throw new WeftException("the loss of micro-batch " + mb + " has " + l.numel() + " elements; the loss hook must return a scalar");
    }
    return l;
  }

  /** Passes an activation or gradient to the virtual stage {@code target}: by hand if it lives here, else by the next send. */
  private void handOn(boolean activation, int mb, int chunk, int target, Tensor t) {
    held.keep(t);
    if (s.ownerOf(target) == stage) {
      inbox.put(new Key(activation, mb, s.chunkOf(target)), t);
    } else {
      outbox.put(new Key(activation, mb, chunk), t);
    }
  }

  private Tensor take(Key k) {
    Tensor t = inbox.remove(k);
    if (t == null) throw new IllegalStateException("no " + (k.activation() ? "activation" : "gradient") + " for " + k + "; the schedule is invalid");
    return t;
  }

  private void checkShape(Tensor act, int mb, int targetVs, int chunk) {
    if (x.shape == null) return;
    long[] want = x.shape.shape(mb, targetVs);
    long[] got = act.sizes().vec().get();
    // JavaCPP hands back a fresh enum object for scalar_type(): compare interned values.
    if (!Arrays.equals(want, got) || act.scalar_type().intern() != x.dtype) {
      throw new WeftException("chunk " + chunk + " of stage " + stage + " returned " + Arrays.toString(got) + " " + act.scalar_type()
          + " for micro-batch " + mb + ", but the activation shape says " + Arrays.toString(want) + " " + x.dtype
          + "; make the shape supplier and activation type match the module");
    }
  }
}
