package dev.weft.models.layers;

import static org.bytedeco.pytorch.global.torch.cross_entropy_loss;
import static org.bytedeco.pytorch.global.torch.layer_norm;
import static org.bytedeco.pytorch.global.torch.ones;
import static org.bytedeco.pytorch.global.torch.zeros;

import dev.weft.data.Batches;
import dev.weft.models.ChunkedCrossEntropy;
import dev.weft.models.DeferredWeightGrads;
import dev.weft.models.Init;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/** Unsplit layers: one rank holds every weight. */
public final class DenseLayers implements Layers {
  private static final long SUM = 2; // at::Reduction::Sum
  private final Init.Draws init;
  private final long lossChunk;
  private final Parameters params = new Parameters();

  public DenseLayers(long seed) { this(Init.Draws.seeded(seed)); }

  /** Layers whose initial weights come from {@code init} (unset when pretrained weights overwrite them). */
  public DenseLayers(Init.Draws init) { this(init, ChunkedCrossEntropy.DEFAULT_TOKENS); }

  /** As above, the head's loss computed over chunks of {@code lossChunk} tokens (0: the whole sequence at once). */
  public DenseLayers(Init.Draws init, long lossChunk) {
    this.init = init;
    this.lossChunk = lossChunk;
  }

  /** Registers a whole (unsplit) parameter. */
  public static Tensor whole(Parameters params, String name, Tensor value) {
    Tensor t = value.contiguous().requires_grad_(true);
    return params.add(new Param(name, t, t.sizes().vec().get(), -1, 0, 1));
  }

  @Override
  public Linear columns(java.util.List<String> names, long in, long[] outs, double std, boolean bias) {
    TensorVector ws = new TensorVector(), bs = new TensorVector();
    register(names, in, outs, std, bias, ws, bs);
    return linear(ws, bs);
  }

  /** Each layer its own matmul and its own output: nothing to concatenate, nothing to slice. */
  @Override
  public Columns columnParts(java.util.List<String> names, long in, long[] outs, double std, boolean bias) {
    TensorVector ws = new TensorVector(), bs = new TensorVector();
    register(names, in, outs, std, bias, ws, bs);
    return parts(ws, bs);
  }

  private void register(java.util.List<String> names, long in, long[] outs, double std, boolean bias, TensorVector ws, TensorVector bs) {
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      ws.push_back(whole(params, n + ".weight", init.normal(n + ".weight", std, outs[i], in)));
      if (bias) bs.push_back(whole(params, n + ".bias", zeros(outs[i])));
    }
  }

  /** x·Wᵀ + b for each weight (and bias, if any), each output apart. */
  public static Columns parts(TensorVector ws, TensorVector bs) {
    boolean bias = bs.size() > 0;
    return x -> {
      Tensor[] ys = new Tensor[(int) ws.size()];
      for (int i = 0; i < ys.length; i++) ys[i] = DeferredWeightGrads.linear(x, ws.get(i), bias ? bs.get(i) : null);
      return ys;
    };
  }

  /**
   * x·Wᵀ + b for each weight (and bias, if any), the outputs concatenated on the last dimension. The weights are
   * never concatenated: that copy was made on every forward and kept for the backward (2.5 GB at 1B parameters).
   */
  public static Linear linear(TensorVector ws, TensorVector bs) {
    Columns each = parts(ws, bs);
    return x -> {
      Tensor[] ys = each.forward(x);
      if (ys.length == 1) return ys[0];
      try (TensorVector all = new TensorVector()) {
        for (Tensor y : ys) {
          all.push_back(y);
          y.close(); // the vector holds it until the concatenation; the backward needs neither
        }
        return torch.cat(all, -1);
      }
    };
  }

  @Override
  public Linear row(String name, long in, long out, double std, boolean bias) {
    return columns(java.util.List.of(name), in, new long[] {out}, std, bias);
  }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) {
    return positionEmbedding(name, vocab, dim, std);
  }

  @Override
  public Embedding positionEmbedding(String name, long rows, long dim, double std) {
    Tensor w = whole(params, name + ".weight", init.normal(name + ".weight", std, rows, dim));
    return ids -> org.bytedeco.pytorch.global.torch.embedding(w, ids);
  }

  @Override
  public Linear layerNorm(String name, long dim) { return layerNorm(params, name, dim); }

  /** LayerNorm is replicated under every split, so split layer sets share this one. */
  public static Linear layerNorm(Parameters params, String name, long dim) {
    Tensor g = whole(params, name + ".weight", ones(dim));
    Tensor b = whole(params, name + ".bias", zeros(dim));
    long[] shape = {dim};
    return x -> layer_norm(x, shape, new TensorOptional(g), new TensorOptional(b), 1e-5, false);
  }

  @Override
  public Linear rmsNorm(String name, long dim, double eps) { return rmsNorm(params, name, dim, eps); }

  /** RMSNorm is replicated under every split, like LayerNorm. */
  public static Linear rmsNorm(Parameters params, String name, long dim, double eps) {
    Tensor g = whole(params, name + ".weight", ones(dim));
    long[] shape = {dim};
    return x -> {
      if (x.scalar_type() == g.scalar_type()) return torch.rms_norm(x, shape, new TensorOptional(g), new DoubleOptional(eps));
      // 16-bit activations over an fp32 weight (mapped bf16 eval): libtorch's fallback for mixed dtypes warns on every
      // process; normalising in the weight's dtype and casting back is what that fallback computes anyway
      return torch.rms_norm(x.to(g.scalar_type()), shape, new TensorOptional(g), new DoubleOptional(eps)).to(x.scalar_type());
    };
  }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) {
    return head(whole(params, name + ".weight", init.normal(name + ".weight", std, vocab, dim)), vocab);
  }

  @Override
  public LmHead tiedLmHead(String embeddingName, long dim, long vocab) {
    String name = embeddingName + ".weight";
    return head(tiedWeight(params, name, () -> whole(params, name, zeros(vocab, dim))), vocab);
  }

  /**
   * The embedding's weight {@code name} when this rank holds it; else (a later pipeline stage) a copy
   * registered under the same name by {@code registerCopy} and marked as such: the framework starts it
   * from the original's value and sums the two gradients (see {@link Parameters#markTiedCopy}).
   */
  public static Tensor tiedWeight(Parameters params, String name, java.util.function.Supplier<Tensor> registerCopy) {
    if (params.contains(name)) return params.get(name).tensor();
    Tensor copy = registerCopy.get();
    params.markTiedCopy(name);
    return copy;
  }

  private LmHead head(Tensor w, long vocab) {
    return new LmHead() {
      @Override public Tensor lossSum(Tensor h, Tensor targets) {
        if (ChunkedCrossEntropy.applies(targets.numel(), lossChunk)) {
          return ChunkedCrossEntropy.lossSum(h, w, targets, lossChunk, ChunkedCrossEntropy.Vocab.whole());
        }
        return cross_entropy_loss(logits(h).view(-1, vocab), targets.reshape(-1), new TensorOptional(), SUM, Batches.IGNORE, 0.0);
      }
      @Override public Tensor logits(Tensor h) { return DeferredWeightGrads.linear(h, w, null); }
    };
  }

  @Override public int splits() { return 1; }
  @Override public Parameters parameters() { return params; }
}
