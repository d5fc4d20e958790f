package dev.weft.models;

import org.bytedeco.pytorch.Tensor;

/**
 * The layers a model is built from. A model asks for a "column" layer (whose outputs may be split
 * across the tensor-parallel group) or a "row" layer (whose inputs are split and whose output is
 * whole), and never calls communication itself; {@code dev.weft.parallel.tensor} supplies the split
 * versions, {@link dev.weft.models.layers.DenseLayers} the plain ones.
 */
public interface Layers {
  /** A linear map; {@code forward} takes [..., in] and returns [..., out/tp] (column) or [..., out] (row). */
  interface Linear {
    Tensor forward(Tensor x);
  }

  interface Embedding {
    Tensor forward(Tensor ids);
  }

  /**
   * The output head fused with the loss, so a split vocabulary never materialises full logits. Targets equal to
   * {@link dev.weft.data.Batches#IGNORE} are no targets: they add nothing to the loss nor to its gradient.
   */
  interface LmHead {
    /** The cross-entropy summed over the targets (0, with a gradient graph, where there is none). */
    Tensor lossSum(Tensor hidden, Tensor targets);

    /** The mean cross-entropy over the targets (NaN where there is none). */
    default Tensor loss(Tensor hidden, Tensor targets) { return Targets.mean(lossSum(hidden, targets), targets); }

    /** Full-vocabulary logits [..., vocab]; a tensor-parallel head gathers them over its group (GRPO samples under tp). */
    default Tensor logits(Tensor hidden) {
      throw new UnsupportedOperationException("logits of a vocabulary split over tensor-parallel ranks; evaluate with tp=1");
    }
  }

  /** Linear whose output features are split across the group; its output stays split. */
  default Linear column(String name, long in, long out, double std) { return columns(java.util.List.of(name), in, out, std); }

  /** As {@link #column(String, long, long, double)}, with or without a bias. */
  default Linear column(String name, long in, long out, double std, boolean bias) {
    return columns(java.util.List.of(name), in, new long[] {out}, std, bias);
  }

  /** As {@link #columns(java.util.List, long, long, double)}, with or without a bias. */
  default Linear columns(java.util.List<String> names, long in, long out, double std) {
    long[] outs = new long[names.size()];
    java.util.Arrays.fill(outs, out);
    return columns(names, in, outs, std, true);
  }

  /**
   * Several column layers over the same input, computed as one: the output is their (local) outputs
   * concatenated on the last dimension. Under tensor parallelism the input's gradient is then
   * reduced once for all of them (as Megatron's fused QKV does) instead of once per layer.
   */
  /**
   * Several column layers over the same input, each with its own output size {@code outs[i]} (a
   * grouped-query attention's q, k and v differ); each is split across the group on its own.
   */
  Linear columns(java.util.List<String> names, long in, long[] outs, double std, boolean bias);

  /** Several column layers over one input whose outputs are used one by one: [..., outs[i]/tp] each, in order. */
  interface Columns {
    Tensor[] forward(Tensor x);

    /** The fused output of {@code fused} cut into consecutive slices {@code widths} wide on the last dimension. */
    static Columns sliced(Linear fused, long[] widths) {
      return x -> {
        Tensor all = fused.forward(x);
        Tensor[] parts = new Tensor[widths.length];
        for (int i = 0, at = 0; i < widths.length; at += widths[i++]) parts[i] = all.narrow(-1, at, widths[i]);
        return parts;
      };
    }
  }

  /**
   * As {@link #columns(java.util.List, long, long[], double, boolean)}, each output apart, for a consumer that uses
   * them one by one (q, k, v; gate, up). Layers that can compute them apart (unsplit) do, so the forward
   * concatenates nothing and the backward builds no zero-padded gradient per slice; here, the fused output sliced.
   */
  default Columns columnParts(java.util.List<String> names, long in, long[] outs, double std, boolean bias) {
    long[] widths = new long[outs.length];
    for (int i = 0; i < outs.length; i++) widths[i] = outs[i] / splits();
    return Columns.sliced(columns(names, in, outs, std, bias), widths);
  }

  /**
   * A linear (no bias) whose weight [out, in], given whole, every rank of the group holds whole and
   * applies to the activations as they are (an adapter's factor beside a split layer); registered as
   * {@code name.weight}. Split layer sets sum its gradient over the group where each rank sees only
   * part of the sequence.
   */
  default Linear replicated(String name, Tensor weight) {
    Tensor w = weight.contiguous().requires_grad_(true);
    parameters().add(new Parameters.Param(name + ".weight", w, w.sizes().vec().get(), -1, 0, 1));
    return x -> DeferredWeightGrads.linear(x, w, null);
  }

  /** Linear whose input features are split across the group; its output is whole. */
  default Linear row(String name, long in, long out, double std) { return row(name, in, out, std, true); }

  Linear row(String name, long in, long out, double std, boolean bias);

  Embedding embedding(String name, long vocab, long dim, double std);

  /**
   * Position embedding (replicated weights). Given the positions of the whole sequence [T] (or per sample [B, T],
   * packed documents), returns the rows for the part of the sequence this rank holds ([T] or, under sequence
   * parallelism, its chunk).
   */
  Embedding positionEmbedding(String name, long rows, long dim, double std);

  /** LayerNorm over the last dimension (always replicated). */
  Linear layerNorm(String name, long dim);

  /** RMSNorm over the last dimension with a learned scale (always replicated). */
  Linear rmsNorm(String name, long dim, double eps);

  LmHead lmHead(String name, long dim, long vocab, double std);

  /**
   * An output head that shares the weight of the token embedding {@code embeddingName} (tied
   * embeddings); both must live on the same rank, in the same ZeRO-3 unit's reach.
   */
  LmHead tiedLmHead(String embeddingName, long dim, long vocab);

  /**
   * Per-head RMSNorm over the last dimension {@code headDim} of [B, heads, T, headDim] (Qwen3's q/k norms).
   * Its weight is replicated, but each tensor-parallel rank applies it to its own heads, so split
   * layers sum its gradient over the group.
   */
  default Linear headNorm(String name, long headDim, double eps) { return rmsNorm(name, headDim, eps); }

  /**
   * Attention of queries [B, H, T, d] over keys and values [B, KV, S, d] (this rank's heads), masked as
   * {@code mask} says; returns [B, H, T, d]. The plain version is {@link Attention#plain}; a layout
   * that splits the sequence (context parallelism) supplies its own. Decorators of Layers forward it.
   */
  default Tensor attention(Tensor q, Tensor k, Tensor v, AttentionMask mask) { return Attention.plain(q, k, v, mask); }

  /**
   * {@code count} routed SwiGLU experts of intermediate size {@code hidden} over inputs of size {@code in}, their
   * parameters named {@code prefix + e + "." + part} for parts (gate, up, down). The plain version runs every
   * expert here ({@link LocalExperts}); an expert-parallel layout supplies one that dispatches tokens to the
   * experts' ranks. Decorators of Layers forward it.
   */
  default Experts experts(String prefix, java.util.List<String> parts, int count, long in, long hidden, double std) {
    return new LocalExperts(this, prefix, parts, 0, count, in, hidden, std);
  }

  /** How many ways column and row layers split their features. */
  int splits();

  Parameters parameters();
}
