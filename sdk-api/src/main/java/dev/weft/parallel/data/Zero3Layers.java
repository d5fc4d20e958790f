package dev.weft.parallel.data;

import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;

/**
 * ZeRO around any {@link Layers}: every layer is a unit. Under ZeRO-3 a unit's parameters are gathered
 * just before its forward and released right after, and gathered again when backward reaches it (a
 * hook on the layer's output fires before the layer's own backward); {@link ShardedOptimizer} releases
 * them once their gradients are reduced. Under ZeRO-1/2 a unit's forward first waits for its
 * parameters' post-step all-gather ({@link ShardedOptimizer#awaitParams}). Without a bound optimizer
 * it only records units.
 */
public final class Zero3Layers implements Layers {
  private final Layers inner;
  private final boolean zero3;
  private final List<Integer> unitOfParam = new ArrayList<>();
  private final List<Object> keepAlive = new ArrayList<>();
  private ShardedOptimizer optimizer;
  private int units;

  public Zero3Layers(Layers inner) { this(inner, true); }

  /** @param zero3 parameters live as shards (stage 3); else (stages 1–2) they are whole and only awaited */
  public Zero3Layers(Layers inner, boolean zero3) {
    this.inner = inner;
    this.zero3 = zero3;
  }

  /** The layers wrapped. */
  public Layers inner() { return inner; }

  /** Connects the optimizer that owns the shards (after the model is built); its layers now gate their parameters. */
  public void bind(ShardedOptimizer opt) {
    this.optimizer = opt;
    opt.gateByUnits();
  }

  /** Unit id of each trainable parameter, in {@link Parameters#trainable()} order (frozen ones are never gathered). */
  public int[] units() { return unitOfParam.stream().mapToInt(Integer::intValue).toArray(); }

  /**
   * The trainable parameters a layer factory call created since {@code paramsBefore}, as one gathered
   * unit; null where it created none (a frozen LoRA base stays whole on every rank and is never gathered).
   */
  private Gate gate(int paramsBefore) {
    List<Parameters.Param> all = inner.parameters().list();
    long trainable = all.subList(paramsBefore, all.size()).stream().filter(p -> !inner.parameters().isFrozen(p.name())).count();
    if (trainable == 0) return null;
    int unit = units++;
    for (int i = 0; i < trainable; i++) unitOfParam.add(unit);
    return new Gate(unit, false);
  }

  /** Runs a layer call with its unit's parameters gathered, and re-gathers them when backward reaches its output. */
  private final class Gate {
    final int unit;
    final boolean revisit; // a unit used again later in the forward (a tied head): no prefetching from it
    final TensorTensorHook regather;

    Gate(int unit, boolean revisit) {
      this.unit = unit;
      this.revisit = revisit;
      this.regather = new TensorTensorHook() {
        @Override
        public TensorBase call(TensorBase grad) {
          dev.weft.util.HookArgument.done(grad);
          optimizer.gatherBackward(unit); // backward runs the units in reverse: fetch the previous groups
          return new TensorBase(); // undefined: keep the gradient as it is
        }
      };
      keepAlive.add(regather);
    }

    Tensor run(java.util.function.Supplier<Tensor> f) {
      if (optimizer == null) return f.get();
      if (optimizer.stage() != 3) {
        optimizer.awaitParams(unit);
        return f.get();
      }
      if (revisit) optimizer.gather(unit);
      else optimizer.gatherForward(unit); // units are numbered in forward order: fetch the next groups
      Tensor y;
      try {
        y = f.get();
      } finally {
        optimizer.release(unit);
      }
      if (y.requires_grad()) y.register_hook(regather);
      return y;
    }
  }

  /** Builds a layer through {@code make} and makes its parameters one unit gathered around each call. */
  private Linear linear(java.util.function.Supplier<Linear> make) {
    int before = inner.parameters().size();
    Linear l = make.get();
    Gate g = gate(before);
    return g == null ? l : x -> g.run(() -> l.forward(x));
  }

  private Embedding embedding(java.util.function.Supplier<Embedding> make) {
    Linear asLinear = linear(() -> make.get()::forward);
    return asLinear::forward;
  }

  @Override
  public Linear columns(List<String> names, long in, long[] outs, double std, boolean bias) {
    return linear(() -> inner.columns(names, in, outs, std, bias));
  }

  @Override
  public Linear row(String name, long in, long out, double std, boolean bias) { return linear(() -> inner.row(name, in, out, std, bias)); }

  @Override
  public Linear replicated(String name, Tensor weight) { return linear(() -> inner.replicated(name, weight)); }

  @Override
  public Linear layerNorm(String name, long dim) { return linear(() -> inner.layerNorm(name, dim)); }

  @Override
  public Linear rmsNorm(String name, long dim, double eps) { return linear(() -> inner.rmsNorm(name, dim, eps)); }

  @Override
  public Linear headNorm(String name, long headDim, double eps) { return linear(() -> inner.headNorm(name, headDim, eps)); }

  @Override
  public Tensor attention(Tensor q, Tensor k, Tensor v, dev.weft.models.AttentionMask mask) { return inner.attention(q, k, v, mask); }

  /**
   * A tied head on the rank holding the embedding runs in the embedding's unit (gathered again, or
   * awaited, around the head's call); on a later pipeline stage its weight is a copy, a unit of its own.
   */
  @Override
  public LmHead tiedLmHead(String embeddingName, long dim, long vocab) {
    int before = inner.parameters().size();
    LmHead l = inner.tiedLmHead(embeddingName, dim, vocab);
    if (inner.parameters().size() > before) return gated(gate(before), l);
    String embedding = embeddingName + ".weight";
    if (inner.parameters().isFrozen(embedding)) return l; // a frozen LoRA base: never gathered
    int index = inner.parameters().trainable().indexOf(inner.parameters().get(embedding));
    return gated(new Gate(unitOfParam.get(index), true), l);
  }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) {
    return embedding(() -> inner.embedding(name, vocab, dim, std));
  }

  @Override
  public Embedding positionEmbedding(String name, long rows, long dim, double std) {
    return embedding(() -> inner.positionEmbedding(name, rows, dim, std));
  }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) {
    int before = inner.parameters().size();
    LmHead l = inner.lmHead(name, dim, vocab, std);
    return gated(gate(before), l);
  }

  private LmHead gated(Gate g, LmHead l) {
    if (g == null) return l; // no trainable parameter (a frozen LoRA base)
    return new LmHead() {
      @Override public Tensor lossSum(Tensor hidden, Tensor targets) { return g.run(() -> l.lossSum(hidden, targets)); }
      @Override public Tensor logits(Tensor hidden) { return g.run(() -> l.logits(hidden)); }
    };
  }

  @Override public int splits() { return inner.splits(); }
  @Override public Parameters parameters() { return inner.parameters(); }
}
