package dev.weft.models.lora;

import dev.weft.models.ChunkedCrossEntropy;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import dev.weft.models.quant.FrozenBase;
import dev.weft.spec.LoraSpec;
import dev.weft.util.CallScope;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * LoRA as a decorator of any {@link Layers}: every layer is built by the inner layers and frozen; a
 * target projection (by its Hugging Face module name) gets adapters beside it, y = base(x) +
 * scale · B(A(dropout(x))), with A and B split the way the base is (as Megatron-Bridge does): beside a
 * column-parallel base A is whole on every rank and B is a column layer split by output; beside a
 * row-parallel base A is a row layer split by input and B is whole. The adapters are the only
 * trainable parameters, named {@code <module>.lora_A.weight} and {@code <module>.lora_B.weight}.
 * A starts kaiming-uniform (as PEFT), B at zero, so training starts from the base model exactly.
 */
public final class LoraLayers implements Layers {
  private final Layers inner;
  private final LoraSpec lora;
  private final long seed;
  private final Scalar scale;
  private final LoraDropout dropout;
  private final FrozenBase frozenBase;
  private final boolean tables;
  private final long lossChunk;
  private boolean off; // adapters switched off: every target gives its base's output (DPO's reference policy)

  public LoraLayers(Layers inner, LoraSpec lora, long seed) { this(inner, lora, seed, false, ChunkedCrossEntropy.DEFAULT_TOKENS); }

  /**
   * As above; {@code tables}: under a compressed base ({@code train.lora.quantize}) the token embedding and the head are
   * held in 16 bits too ({@link FrozenBase#table}), the head's loss made over chunks of {@code lossChunk} tokens (0: one
   * chunk). Only where one rank holds them whole and nothing copies them (no tensor, context or pipeline split).
   */
  public LoraLayers(Layers inner, LoraSpec lora, long seed, boolean tables, long lossChunk) {
    this.inner = inner;
    this.tables = tables;
    this.lossChunk = lossChunk;
    this.lora = lora;
    this.seed = seed;
    this.scale = new Scalar(lora.scale());
    this.dropout = new LoraDropout(lora.dropout(), seed);
    this.frozenBase = new FrozenBase(FrozenBase.Format.of(lora.quantize()));
  }

  /** The frozen projection weights, held as {@code train.lora.quantize} says. */
  public FrozenBase frozenBase() { return frozenBase; }

  /**
   * The base projection of {@code names}: the inner layers' own, or (a compressed base) one over the same parameters,
   * held by {@link #frozenBase} and made again in fp32 per call.
   */
  private Linear base(List<String> names, boolean bias, Supplier<Linear> make) {
    Linear inner = frozen(make);
    if (frozenBase.format() == FrozenBase.Format.NONE) return inner;
    Parameters ps = this.inner.parameters();
    return frozenBase.linear(names.stream().map(n -> ps.get(n + ".weight")).toList(),
        bias ? names.stream().map(n -> ps.get(n + ".bias").tensor()).toList() : List.of());
  }

  public LoraSpec spec() { return lora; }

  /** The adapters switched off until closed. */
  public interface Off extends AutoCloseable {
    @Override void close();
  }

  /**
   * Switches the adapters off until the returned handle is closed: the model then computes its frozen base exactly
   * (PEFT's {@code disable_adapter()}), which is DPO's reference policy without a second copy of the weights.
   */
  public Off adaptersOff() {
    off = true;
    return () -> off = false;
  }

  /** The layers the base is built from. */
  public Layers inner() { return inner; }

  /** Builds a layer through the inner layers and freezes every parameter it created. */
  private <T> T frozen(Supplier<T> make) {
    Parameters params = inner.parameters();
    int before = params.size();
    T layer = make.get();
    List<Param> all = params.list();
    for (Param p : all.subList(before, all.size())) params.freeze(p.name());
    return layer;
  }

  @Override
  public Linear columns(List<String> names, long in, long[] outs, double std, boolean bias) {
    Linear base = base(names, bias, () -> inner.columns(names, in, outs, std, bias));
    if (names.stream().noneMatch(lora::targets)) return base;
    List<Linear> adapters = new ArrayList<>();
    long[] widths = new long[names.size()];
    for (int i = 0; i < names.size(); i++) {
      widths[i] = outs[i] / inner.splits();
      adapters.add(lora.targets(names.get(i)) ? columnAdapter(names.get(i), in, outs[i]) : null);
    }
    // the adapters' outputs side by side, added to the fused base output once: slicing that output per name
    // would cost a full-size zero-padded gradient per slice in the backward
    return x -> {
      if (off) return base.forward(x);
      return CallScope.run(() -> {
        Tensor y = base.forward(x), xd = dropout.apply(x);
        if (adapters.size() == 1) return y.add(adapters.get(0).forward(xd), scale);
        try (TensorVector parts = new TensorVector()) {
          for (int i = 0; i < widths.length; i++) {
            parts.push_back(adapters.get(i) != null ? adapters.get(i).forward(xd) : zerosBeside(y, widths[i]));
          }
          return y.add(torch.cat(parts, -1), scale);
        }
      });
    };
  }

  /**
   * Unsplit over an uncompressed base, each projection's adapter added to its own base output (nothing
   * concatenated, so no copy forward and no slicing backward); split or compressed bases keep the fused path above.
   */
  @Override
  public Columns columnParts(List<String> names, long in, long[] outs, double std, boolean bias) {
    if (inner.splits() > 1 || frozenBase.format() != FrozenBase.Format.NONE) return Layers.super.columnParts(names, in, outs, std, bias);
    Columns base = frozen(() -> inner.columnParts(names, in, outs, std, bias));
    if (names.stream().noneMatch(lora::targets)) return base;
    List<Linear> adapters = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) adapters.add(lora.targets(names.get(i)) ? columnAdapter(names.get(i), in, outs[i]) : null);
    return x -> {
      Tensor[] ys = base.forward(x);
      if (off) return ys;
      Tensor xd = dropout.apply(x);
      for (int i = 0; i < ys.length; i++) {
        if (adapters.get(i) == null) continue;
        Tensor yi = ys[i];
        Linear adapter = adapters.get(i);
        ys[i] = CallScope.run(() -> yi.add(adapter.forward(xd), scale));
        yi.close(); // the base's own output: the sum replaces it
      }
      return ys;
    };
  }

  /** Zeros in place of an untargeted projection's adapter output: {@code like}'s leading shape, {@code width} wide. */
  private static Tensor zerosBeside(Tensor like, long width) {
    long[] shape = like.sizes().vec().get();
    shape[shape.length - 1] = width;
    return like.new_zeros(shape);
  }

  /** Beside a column-parallel base: A [r, in] whole on every rank, B [out, r] a column layer (split by output); unscaled. */
  private Linear columnAdapter(String name, long in, long out) {
    Linear a = inner.replicated(name + ".lora_A", LoraInit.a(seed, name, lora.rank(), in));
    Linear b = inner.column(name + ".lora_B", lora.rank(), out, 0.0, false);
    LoraInit.zero(inner.parameters().get(name + ".lora_B.weight"));
    return x -> b.forward(a.forward(x));
  }

  @Override
  public Linear row(String name, long in, long out, double std, boolean bias) {
    Linear base = base(List.of(name), bias, () -> inner.row(name, in, out, std, bias));
    if (!lora.targets(name)) return base;
    // beside a row-parallel base: A [r, in] a row layer (split by input, output summed), B [out, r] whole
    Linear a = inner.row(name + ".lora_A", in, lora.rank(), 0.0, false);
    LoraInit.fill(inner.parameters().get(name + ".lora_A.weight"), LoraInit.a(seed, name, lora.rank(), in));
    Linear b = inner.replicated(name + ".lora_B", torch.zeros(out, lora.rank()));
    return x -> off ? base.forward(x) : CallScope.run(() -> base.forward(x).add(b.forward(a.forward(dropout.apply(x))), scale));
  }

  @Override
  public Linear replicated(String name, Tensor weight) { return frozen(() -> inner.replicated(name, weight)); }

  @Override
  public Embedding embedding(String name, long vocab, long dim, double std) {
    Embedding plain = frozen(() -> inner.embedding(name, vocab, dim, std));
    if (!heldTables()) return plain;
    return frozenBase.table(inner.parameters().get(name + ".weight"))::gather;
  }

  /** Whether the embedding and head are held in the compressed base's 16 bits (see the constructor). */
  private boolean heldTables() { return tables && frozenBase.format() != FrozenBase.Format.NONE && inner.splits() == 1; }

  /** The head over {@code weight}'s table when {@link #heldTables}: its loss over chunks of tokens, its weight made per block. */
  private LmHead held(LmHead plain, String weight) {
    if (!heldTables()) return plain;
    FrozenBase.Table t = frozenBase.table(inner.parameters().get(weight));
    return new LmHead() {
      @Override public Tensor lossSum(Tensor h, Tensor targets) { return ChunkedCrossEntropy.lossSum(h, t, targets, lossChunk); }
      @Override public Tensor logits(Tensor h) { return t.logits(h); }
    };
  }

  @Override
  public Embedding positionEmbedding(String name, long rows, long dim, double std) {
    return frozen(() -> inner.positionEmbedding(name, rows, dim, std));
  }

  @Override public Linear layerNorm(String name, long dim) { return frozen(() -> inner.layerNorm(name, dim)); }

  @Override public Linear rmsNorm(String name, long dim, double eps) { return frozen(() -> inner.rmsNorm(name, dim, eps)); }

  @Override
  public Linear headNorm(String name, long headDim, double eps) { return frozen(() -> inner.headNorm(name, headDim, eps)); }

  @Override
  public Tensor attention(Tensor q, Tensor k, Tensor v, dev.weft.models.AttentionMask mask) { return inner.attention(q, k, v, mask); }

  @Override
  public LmHead lmHead(String name, long dim, long vocab, double std) {
    return held(frozen(() -> inner.lmHead(name, dim, vocab, std)), name + ".weight");
  }

  @Override
  public LmHead tiedLmHead(String embeddingName, long dim, long vocab) {
    return held(frozen(() -> inner.tiedLmHead(embeddingName, dim, vocab)), embeddingName + ".weight");
  }

  @Override public int splits() { return inner.splits(); }
  @Override public Parameters parameters() { return inner.parameters(); }

  /** Whether {@code name} (a parameter) is a LoRA factor. */
  public static boolean isAdapter(String name) { return name.endsWith(".lora_A.weight") || name.endsWith(".lora_B.weight"); }
}
