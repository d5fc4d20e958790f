package dev.weft.parallel.data;

import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorBase;
import org.bytedeco.pytorch.TensorTensorHook;

/**
 * ZeRO-3 around any {@link Layers}: every layer is a unit whose parameters are gathered just before
 * its forward and released right after, and gathered again when backward reaches it (a hook on the
 * layer's output fires before the layer's own backward); {@link ShardedOptimizer} releases them
 * once their gradients are reduced. Without a bound optimizer (other stages) it only records units.
 */
public final class Zero3Layers implements Layers {
  private final Layers inner;
  private final List<Integer> unitOfParam = new ArrayList<>();
  private final List<Object> keepAlive = new ArrayList<>();
  private ShardedOptimizer optimizer;
  private int units;

  public Zero3Layers(Layers inner) { this.inner = inner; }

  /** Connects the optimizer that owns the shards (after the model is built). */
  public void bind(ShardedOptimizer opt) { this.optimizer = opt; }

  /** Unit id of each parameter, in {@link Parameters#list()} order. */
  public int[] units() { return unitOfParam.stream().mapToInt(Integer::intValue).toArray(); }

  /** Records the parameters a layer factory call created as one unit. */
  private int newUnit(int paramsBefore) {
    int unit = units++;
    for (int i = paramsBefore; i < inner.parameters().size(); i++) unitOfParam.add(unit);
    return unit;
  }

  private Tensor run(int unit, TensorTensorHook regather, java.util.function.Supplier<Tensor> f) {
    if (optimizer == null || optimizer.stage() != 3) return f.get();
    optimizer.gather(unit);
    Tensor y;
    try {
      y = f.get();
    } finally {
      optimizer.release(unit);
    }
    if (y.requires_grad()) y.register_hook(regather);
    return y;
  }

  private TensorTensorHook regatherHook(int unit) {
    TensorTensorHook h = new TensorTensorHook() {
      @Override
      public TensorBase call(TensorBase grad) {
        optimizer.gather(unit);
        return new TensorBase(); // undefined: keep the gradient as it is
      }
    };
    keepAlive.add(h);
    return h;
  }

  @Override
  public Linear columns(List<String> names, long in, long out, double std) {
    int before = inner.parameters().size();
    Linear l = inner.columns(names, in, out, std);
    int unit = newUnit(before);
    TensorTensorHook h = regatherHook(unit);
    return x -> run(unit, h, () -> l.forward(x));
  }

  @Override
  public Linear row(String name, long in, long out, double std) {
    int before = inner.parameters().size();
    Linear l = inner.row(name, in, out, std);
    int unit = newUnit(before);
    TensorTensorHook h = regatherHook(unit);
    return x -> run(unit, h, () -> l.forward(x));
  }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) {
    int before = inner.parameters().size();
    Embedding e = inner.embedding(name, vocab, dim, std);
    int unit = newUnit(before);
    TensorTensorHook h = regatherHook(unit);
    return ids -> run(unit, h, () -> e.forward(ids));
  }

  @Override
  public Embedding positionEmbedding(String name, long rows, long dim, double std) {
    int before = inner.parameters().size();
    Embedding e = inner.positionEmbedding(name, rows, dim, std);
    int unit = newUnit(before);
    TensorTensorHook h = regatherHook(unit);
    return ids -> run(unit, h, () -> e.forward(ids));
  }

  @Override
  public Linear layerNorm(String name, long dim) {
    int before = inner.parameters().size();
    Linear l = inner.layerNorm(name, dim);
    int unit = newUnit(before);
    TensorTensorHook h = regatherHook(unit);
    return x -> run(unit, h, () -> l.forward(x));
  }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) {
    int before = inner.parameters().size();
    LmHead l = inner.lmHead(name, dim, vocab, std);
    int unit = newUnit(before);
    TensorTensorHook h = regatherHook(unit);
    return (hidden, targets) -> run(unit, h, () -> l.loss(hidden, targets));
  }

  @Override public int splits() { return inner.splits(); }
  @Override public Parameters parameters() { return inner.parameters(); }
}
