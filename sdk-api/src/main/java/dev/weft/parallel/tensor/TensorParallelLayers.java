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
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * Megatron-style split layers. Every rank draws the full initial weight from the same seeded
 * generator and keeps its slice, so tp = k starts from exactly the weights of tp = 1.
 * Column-parallel: output features split, input passes through f. Row-parallel: input features
 * split, partial outputs summed by g, bias added once after the sum.
 */
public final class TensorParallelLayers implements Layers {
  private final long seed;
  private final TpOps ops;
  private final boolean sequenceParallel;
  private final Parameters params = new Parameters();

  /**
   * @param sequenceParallel keep activations outside the split layers sharded along the sequence
   *     (all-gather before column layers, reduce-scatter after row layers), as Megatron does
   */
  public TensorParallelLayers(long seed, TpOps ops, boolean sequenceParallel) {
    this.seed = seed;
    this.ops = ops;
    this.sequenceParallel = sequenceParallel;
  }

  /** Input of a column layer: whole sequence, gradient summed over the group. */
  private Tensor enterSplit(Tensor x) {
    return sequenceParallel ? ops.gatherSequence(x) : ops.copyToTp(x);
  }

  /** Output of a row layer: partial sums reduced (and, under sequence parallelism, scattered). */
  private Tensor leaveSplit(Tensor partial) {
    return sequenceParallel ? ops.scatterSequence(partial) : ops.reduceFromTp(partial);
  }

  /** A replicated parameter; under sequence parallelism its gradient is partial per rank. */
  private Tensor replicated(String name, Tensor value) {
    Tensor t = DenseLayers.whole(params, name, value);
    if (sequenceParallel) params.markPartialGrad(name);
    return t;
  }

  private Tensor sliced(String name, Tensor full, int dim) {
    Tensor local = Init.slice(full, dim, ops.rank(), ops.size()).requires_grad_(true);
    return params.add(new Param(name, local, full.sizes().vec().get(), dim, ops.rank(), ops.size()));
  }

  @Override
  public Linear columns(java.util.List<String> names, long in, long out, double std) {
    TensorVector ws = new TensorVector(), bs = new TensorVector();
    for (String n : names) {
      ws.push_back(sliced(n + ".weight", Init.normalFull(seed, n + ".weight", std, out, in), 0));
      bs.push_back(sliced(n + ".bias", zeros(out), 0));
    }
    if (names.size() == 1) return x -> linear(enterSplit(x), ws.get(0), new TensorOptional(bs.get(0)));
    return x -> linear(enterSplit(x), torch.cat(ws), new TensorOptional(torch.cat(bs)));
  }

  @Override
  public Linear row(String name, long in, long out, double std) {
    Tensor w = sliced(name + ".weight", Init.normalFull(seed, name + ".weight", std, out, in), 1);
    Tensor b = replicated(name + ".bias", zeros(out));
    return x -> leaveSplit(linear(x, w)).add(b);
  }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) {
    Tensor w = sliced(name + ".weight", Init.normalFull(seed, name + ".weight", std, vocab, dim), 0);
    VocabRange range = VocabRange.of(vocab, ops.rank(), ops.size());
    return ids -> leaveSplit(range.lookup(w, ids));
  }

  @Override
  public Embedding positionEmbedding(String name, long rows, long dim, double std) {
    Tensor w = replicated(name + ".weight", Init.normalFull(seed, name + ".weight", std, rows, dim));
    return positions -> {
      Tensor all = org.bytedeco.pytorch.global.torch.embedding(w, positions);
      if (!sequenceParallel) return all;
      long n = all.size(0) / ops.size();
      return all.narrow(0, ops.rank() * n, n);
    };
  }

  @Override
  public Linear layerNorm(String name, long dim) {
    Linear ln = DenseLayers.layerNorm(params, name, dim);
    if (sequenceParallel) {
      params.markPartialGrad(name + ".weight");
      params.markPartialGrad(name + ".bias");
    }
    return ln;
  }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) {
    Tensor w = sliced(name + ".weight", Init.normalFull(seed, name + ".weight", std, vocab, dim), 0);
    VocabParallelCrossEntropy ce = new VocabParallelCrossEntropy(ops, VocabRange.of(vocab, ops.rank(), ops.size()));
    return (h, targets) -> ce.loss(linear(enterSplit(h), w), targets);
  }

  @Override public int splits() { return ops.size(); }
  @Override public Parameters parameters() { return params; }
}
