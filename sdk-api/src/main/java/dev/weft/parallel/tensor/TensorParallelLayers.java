package dev.weft.parallel.tensor;

import static org.bytedeco.pytorch.global.torch.zeros;

import dev.weft.models.ChunkedCrossEntropy;
import dev.weft.models.DeferredWeightGrads;
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
 * Column-parallel ({@link ColumnLinear}): output features split, input passes through f, whose
 * gradient all-reduce overlaps the weight gradient. Row-parallel: input features split, partial
 * outputs summed by g, bias added once after the sum.
 */
public final class TensorParallelLayers implements Layers {
  private final Init.Draws init;
  private final TpOps ops;
  private final boolean sequenceParallel;
  private final long lossChunk;
  private final Parameters params = new Parameters();
  private final ColumnLinear column;

  /**
   * @param sequenceParallel keep activations outside the split layers sharded along the sequence
   *     (all-gather before column layers, reduce-scatter after row layers), as Megatron does
   */
  public TensorParallelLayers(long seed, TpOps ops, boolean sequenceParallel) {
    this(Init.Draws.seeded(seed), ops, sequenceParallel);
  }

  /** As above, with initial weights from {@code init} (unset when pretrained weights overwrite them). */
  public TensorParallelLayers(Init.Draws init, TpOps ops, boolean sequenceParallel) {
    this(init, ops, sequenceParallel, ChunkedCrossEntropy.DEFAULT_TOKENS);
  }

  /** As above, the head's vocabulary-parallel loss computed over chunks of {@code lossChunk} tokens (0: all at once). */
  public TensorParallelLayers(Init.Draws init, TpOps ops, boolean sequenceParallel, long lossChunk) {
    this.init = init;
    this.lossChunk = lossChunk;
    this.ops = ops;
    this.sequenceParallel = sequenceParallel;
    this.column = new ColumnLinear(ops, sequenceParallel);
  }

  /** Output of a row layer: partial sums reduced (and, under sequence parallelism, scattered). */
  private Tensor leaveSplit(Tensor partial) {
    return sequenceParallel ? ops.scatterSequence(partial) : ops.reduceFromTp(partial);
  }

  /** A replicated parameter; under sequence parallelism its gradient is partial per rank. */
  private Tensor replicatedParam(String name, Tensor value) {
    Tensor t = DenseLayers.whole(params, name, value);
    if (sequenceParallel) params.markPartialGrad(name);
    return t;
  }

  private Tensor sliced(String name, Tensor full, int dim) {
    Tensor local = Init.slice(full, dim, ops.rank(), ops.size()).requires_grad_(true);
    return params.add(new Param(name, local, full.sizes().vec().get(), dim, ops.rank(), ops.size()));
  }

  @Override
  public Linear columns(java.util.List<String> names, long in, long[] outs, double std, boolean bias) {
    TensorVector ws = new TensorVector(), bs = new TensorVector();
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      ws.push_back(sliced(n + ".weight", init.normal(n + ".weight", std, outs[i], in), 0));
      if (bias) bs.push_back(sliced(n + ".bias", zeros(outs[i]), 0));
    }
    boolean one = ws.size() == 1;
    // frozen weights (a LoRA base): a matmul per weight on the one input, so the weights are never concatenated (a copy
    // per forward that the backward would keep alive); trainable ones go fused through the overlapped column backward
    Linear each = DenseLayers.linear(ws, bs);
    return x -> !one && !ws.get(0).requires_grad() ? each.forward(column.input(x))
        : column.forward(x, one ? ws.get(0) : torch.cat(ws), !bias ? null : one ? bs.get(0) : torch.cat(bs));
  }

  @Override
  public Linear row(String name, long in, long out, double std, boolean bias) {
    Tensor w = sliced(name + ".weight", init.normal(name + ".weight", std, out, in), 1);
    Tensor b = bias ? replicatedParam(name + ".bias", zeros(out)) : null;
    return x -> {
      Tensor y = leaveSplit(DeferredWeightGrads.linear(x, w, null));
      return b == null ? y : y.add(b);
    };
  }

  @Override
  public Linear replicated(String name, Tensor weight) {
    Tensor w = replicatedParam(name + ".weight", weight);
    return x -> DeferredWeightGrads.linear(x, w, null);
  }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) {
    Tensor w = sliced(name + ".weight", init.normal(name + ".weight", std, vocab, dim), 0);
    VocabRange range = VocabRange.of(vocab, ops.rank(), ops.size());
    return ids -> leaveSplit(range.lookup(w, ids));
  }

  @Override
  public Embedding positionEmbedding(String name, long rows, long dim, double std) {
    Tensor w = replicatedParam(name + ".weight", init.normal(name + ".weight", std, rows, dim));
    return positions -> {
      Tensor all = org.bytedeco.pytorch.global.torch.embedding(w, positions);
      if (!sequenceParallel) return all;
      int seq = (int) all.dim() - 2; // positions [T] → [T, dim]; per-document positions [B, T] → [B, T, dim]
      long n = all.size(seq) / ops.size();
      return all.narrow(seq, ops.rank() * n, n);
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
  public Linear rmsNorm(String name, long dim, double eps) {
    Linear n = DenseLayers.rmsNorm(params, name, dim, eps);
    if (sequenceParallel) params.markPartialGrad(name + ".weight");
    return n;
  }

  /** Each rank normalises its own heads with the shared weight: the weight's gradient is partial. */
  @Override
  public Linear headNorm(String name, long headDim, double eps) {
    Linear n = DenseLayers.rmsNorm(params, name, headDim, eps);
    params.markPartialGrad(name + ".weight");
    return n;
  }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) {
    return head(sliced(name + ".weight", init.normal(name + ".weight", std, vocab, dim), 0), vocab);
  }

  /**
   * The embedding's vocabulary slice is the head's: both split dimension 0 of [vocab, dim] the same way
   * (on a later pipeline stage, a copy of the same slice; see {@link DenseLayers#tiedWeight}).
   */
  @Override
  public LmHead tiedLmHead(String embeddingName, long dim, long vocab) {
    String name = embeddingName + ".weight";
    return head(DenseLayers.tiedWeight(params, name, () -> sliced(name, zeros(vocab, dim), 0)), vocab);
  }

  private LmHead head(Tensor w, long vocab) {
    VocabParallelCrossEntropy ce = new VocabParallelCrossEntropy(ops, VocabRange.of(vocab, ops.rank(), ops.size()));
    return new LmHead() {
      @Override
      public Tensor lossSum(Tensor h, Tensor targets) {
        return ChunkedCrossEntropy.applies(targets.numel(), lossChunk)
            ? ChunkedCrossEntropy.lossSum(column.input(h), w, targets, lossChunk, ce.vocab())
            : ce.lossSum(column.forward(h, w, null), targets);
      }

      /** The full vocabulary on every rank (GRPO samples from it and takes log-probabilities of it): one all-gather. */
      @Override
      public Tensor logits(Tensor h) { return ops.gatherVocab(column.forward(h, w, null)); }
    };
  }

  /** The group's operators (their exposed-communication clock). */
  public TpOps ops() { return ops; }

  @Override public int splits() { return ops.size(); }
  @Override public Parameters parameters() { return params; }
}
