package dev.weft.parallel.tensor;

import static org.bytedeco.pytorch.global.torch.linear;
import static org.bytedeco.pytorch.global.torch.zeros;

import dev.weft.models.Init;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import dev.weft.models.layers.DenseLayers;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;

/**
 * Megatron-style split layers. Every rank draws the full initial weight from the same seeded
 * generator and keeps its slice, so tp = k starts from exactly the weights of tp = 1.
 * Column-parallel: output features split, input passes through f. Row-parallel: input features
 * split, partial outputs summed by g, bias added once after the sum.
 */
public final class TensorParallelLayers implements Layers {
  private final long seed;
  private final TpOps ops;
  private final Parameters params = new Parameters();

  public TensorParallelLayers(long seed, TpOps ops) {
    this.seed = seed;
    this.ops = ops;
  }

  private Tensor sliced(String name, Tensor full, int dim) {
    Tensor local = Init.slice(full, dim, ops.rank(), ops.size()).requires_grad_(true);
    return params.add(new Param(name, local, full.sizes().vec().get(), dim, ops.rank(), ops.size()));
  }

  @Override
  public Linear column(String name, long in, long out, double std) {
    Tensor w = sliced(name + ".weight", Init.normalFull(seed, name + ".weight", std, out, in), 0);
    Tensor b = sliced(name + ".bias", zeros(out), 0);
    return x -> linear(ops.copyToTp(x), w, new TensorOptional(b));
  }

  @Override
  public Linear row(String name, long in, long out, double std) {
    Tensor w = sliced(name + ".weight", Init.normalFull(seed, name + ".weight", std, out, in), 1);
    Tensor b = DenseLayers.whole(params, name + ".bias", zeros(out));
    return x -> ops.reduceFromTp(linear(x, w)).add(b);
  }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) {
    Tensor w = sliced(name + ".weight", Init.normalFull(seed, name + ".weight", std, vocab, dim), 0);
    VocabRange range = VocabRange.of(vocab, ops.rank(), ops.size());
    return ids -> ops.reduceFromTp(range.lookup(w, ids));
  }

  @Override
  public Embedding replicatedEmbedding(String name, long rows, long dim, double std) {
    Tensor w = DenseLayers.whole(params, name + ".weight", Init.normalFull(seed, name + ".weight", std, rows, dim));
    return ids -> org.bytedeco.pytorch.global.torch.embedding(w, ids);
  }

  @Override
  public Linear layerNorm(String name, long dim) { return DenseLayers.layerNorm(params, name, dim); }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) {
    Tensor w = sliced(name + ".weight", Init.normalFull(seed, name + ".weight", std, vocab, dim), 0);
    VocabParallelCrossEntropy ce = new VocabParallelCrossEntropy(ops, VocabRange.of(vocab, ops.rank(), ops.size()));
    return (h, targets) -> ce.loss(linear(ops.copyToTp(h), w), targets);
  }

  @Override public int splits() { return ops.size(); }
  @Override public Parameters parameters() { return params; }
}
