package dev.weft.models.quant;

import static org.bytedeco.pytorch.global.torch.ScalarType.Byte;
import static org.bytedeco.pytorch.global.torch.ScalarType.Float;
import static org.bytedeco.pytorch.global.torch.ScalarType.Int;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * 4-bit NormalFloat (NF4) as QLoRA (Dettmers et al., 2023) and bitsandbytes define it, and the one storage layout Weft
 * keeps it in (CUDA dequantisation kernels are written against this layout; change both or neither):
 * <ul>
 *   <li>the tensor is read flat (row-major), in blocks of {@link #BLOCK} = 64 elements (the last one may be short);
 *   <li>{@code absmax} float32 [ceil(n/64)]: each block's largest |w|;
 *   <li>{@code codes} uint8 [ceil(n/2)]: element 2i in the HIGH nibble of byte i, element 2i+1 in its LOW nibble
 *       (bitsandbytes' order; an odd n leaves the last low nibble as the code of 0.0, {@link #ZERO_CODE});
 *   <li>a code is the nearest of the 16 {@link #CODE} values to w · (1 / absmax) (fp32 reciprocal, then fp32 product,
 *       as bitsandbytes' kernel computes it), by bitsandbytes' decision thresholds: the float32 midpoints of adjacent
 *       code values, a value above a threshold taking the upper code; a block whose absmax is 0 gets code 7 (0.0);
 *   <li>{@code dequant(i) = CODE[code_i] · absmax[i / 64]} in fp32.
 * </ul>
 * Double quantisation ({@link #nest}, QLoRA's "double quant", bitsandbytes' {@code compress_statistics}) holds the
 * absmax values themselves in 8 bits: {@link Nested}. Non-finite weights are refused (an absmax of ±inf or NaN would
 * zero or poison the whole block).
 */
public final class Nf4 {
  /** Elements per absmax block. */
  public static final int BLOCK = 64;

  /** The NormalFloat4 code, as published in QLoRA's appendix E and bitsandbytes' {@code get_4bit_type("nf4")}. */
  public static final float[] CODE = {
      -1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f, -0.28444138169288635f,
      -0.18477343022823334f, -0.09105003625154495f, 0.0f, 0.07958029955625534f, 0.16093020141124725f,
      0.24611230194568634f, 0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f, 0.7229568362236023f, 1.0f};

  /** The code of 0.0. */
  public static final int ZERO_CODE = 7;

  private Nf4() {}

  /**
   * A tensor in NF4: {@code codes} uint8 [ceil(n/2)], the blocks' {@code scales} (fp32 absmax, or {@link Nested}), and
   * the original shape.
   */
  public record Quantized(Tensor codes, Scales scales, long[] shape) {
    public Quantized(Tensor codes, Tensor absmax, long[] shape) { this(codes, new Plain(absmax), shape); }

    public long numel() {
      long n = 1;
      for (long s : shape) n *= s;
      return n;
    }

    /** Blocks of 64. */
    public long blocks() { return scales.count(); }

    /** Every block's absmax, fp32 [blocks] (made from the nested form where the scales are nested). */
    public Tensor absmax() { return scales.slice(0, scales.count()); }

    /** Bytes held: codes and scales. */
    public long bytes() { return codes.numel() + scales.bytes(); }

    /** This value with a reference of its own to each of its tensors: it outlives the PointerScope it was made in. */
    public Quantized retained() {
      for (Tensor t : scales.tensors()) keep(t);
      keep(codes);
      return this;
    }

    private static void keep(Tensor t) {
      if (t.referenceCount() > 0) t.retainReference();
    }
  }

  /** The absmax of each block of 64, as held. */
  public sealed interface Scales permits Plain, Nested {
    long count();

    /** Blocks [from, from + n)'s absmax, fp32 [n]. */
    Tensor slice(long from, long n);

    long bytes();

    java.util.List<Tensor> tensors();
  }

  /** The absmax values in fp32 [blocks]. */
  public record Plain(Tensor absmax) implements Scales {
    @Override public long count() { return absmax.numel(); }
    @Override public Tensor slice(long from, long n) { return absmax.narrow(0, from, n); }
    @Override public long bytes() { return 4 * absmax.numel(); }
    @Override public java.util.List<Tensor> tensors() { return java.util.List.of(absmax); }
  }

  /**
   * The absmax values double-quantised, as QLoRA and bitsandbytes ({@code quantize_4bit(compress_statistics=True)})
   * define it: {@code offset} = their mean (computed in double, rounded to fp32); the values less the offset (fp32) in
   * blocks of {@link #NESTED_BLOCK} = 256, each block's largest |value| its fp32 {@code absmax}, and each value the
   * nearest of the 256 {@link #DYNAMIC} values to value · (1 / absmax) (fp32 reciprocal and product; decision
   * thresholds the fp32 midpoints of adjacent values, a value above one taking the upper; an absmax of 0 gives the code
   * of 0.0), in {@code codes} uint8 [blocks]. Made again: {@code DYNAMIC[code] · absmax[b / 256] + offset}, in fp32.
   * An absmax then costs 8 bits and 1/256 of a float: 0.516 bytes a weight in all, not 0.5625 (at Llama-3.1-8B's
   * 7 billion projection weights, 330 MB less).
   */
  public record Nested(Tensor codes, Tensor absmax, float offset, long count) implements Scales {
    @Override
    public Tensor slice(long from, long n) {
      long g0 = from / NESTED_BLOCK, g1 = (from + n - 1) / NESTED_BLOCK;
      Tensor scale = absmax.narrow(0, g0, g1 - g0 + 1).unsqueeze(1).expand(new long[] {g1 - g0 + 1, NESTED_BLOCK}).reshape(-1)
          .narrow(0, from - g0 * NESTED_BLOCK, n);
      try (Tensor index = codes.narrow(0, from, n).to(Int)) {
        return DYNAMIC_TABLE.index_select(0, index).mul_(scale).add_(new Scalar(offset));
      }
    }

    @Override public long bytes() { return codes.numel() + 4 * absmax.numel() + 4; }
    @Override public java.util.List<Tensor> tensors() { return java.util.List.of(codes, absmax); }
  }

  /** Absmax values per block of the nested quantisation. */
  public static final int NESTED_BLOCK = 256;

  /**
   * bitsandbytes' signed dynamic 8-bit map ({@code create_dynamic_map(signed=True)}, Dettmers 2016): for each
   * exponent i = 0..6, the midpoints of {@code linspace(0.1, 1, 2^i + 1)} times 10^(i − 6), with both signs; then 0 and
   * 1; sorted, 256 values. Computed in double and rounded once to fp32 (bitsandbytes computes the linspace in fp32, so
   * its table may differ from this one in the last bit of a few values).
   */
  public static final float[] DYNAMIC = dynamicMap();

  private static float[] dynamicMap() {
    double[] powers = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0};
    java.util.List<Float> data = new java.util.ArrayList<>();
    for (int i = 0; i < powers.length; i++) {
      int n = (1 << i) + 1;
      double step = (1.0 - 0.1) / (n - 1);
      double[] b = new double[n];
      for (int k = 0; k < n; k++) b[k] = k == n - 1 ? 1.0 : k * step + 0.1;
      for (int k = 0; k + 1 < n; k++) {
        double mean = (b[k] + b[k + 1]) / 2;
        data.add((float) (powers[i] * mean));
        data.add((float) (-powers[i] * mean));
      }
    }
    data.add(0f);
    data.add(1f);
    float[] out = new float[data.size()];
    for (int i = 0; i < out.length; i++) out[i] = data.get(i);
    java.util.Arrays.sort(out);
    return out;
  }

  private static final Tensor DYNAMIC_TABLE = held(Tensors.ofFloats(DYNAMIC));

  /** The 255 decision thresholds of {@link #DYNAMIC}: fp32 midpoints of adjacent values (computed in double). */
  static float[] dynamicThresholds() {
    float[] t = new float[DYNAMIC.length - 1];
    for (int i = 0; i < t.length; i++) t[i] = (float) (((double) DYNAMIC[i] + (double) DYNAMIC[i + 1]) / 2);
    return t;
  }

  private static final Tensor DYNAMIC_THRESHOLDS = held(Tensors.ofFloats(dynamicThresholds()));

  /** {@code q} with its absmax values double-quantised ({@link Nested}); the codes are q's own. */
  public static Quantized nest(Quantized q) {
    Tensor absmax = q.absmax();
    long n = absmax.numel(), groups = (n + NESTED_BLOCK - 1) / NESTED_BLOCK;
    float offset = (float) absmax.to(torch.ScalarType.Double).mean().item_double();
    Tensor centred = Quant.padded(absmax.sub(new Scalar(offset)), groups * NESTED_BLOCK).view(groups, NESTED_BLOCK);
    Tensor scale = centred.abs().amax(new long[] {1}, false);
    Tensor scaled = centred.mul(Quant.reciprocalOrZero(scale).unsqueeze(1));
    Tensor codes = torch.bucketize(scaled, DYNAMIC_THRESHOLDS, true, false).to(Byte).view(-1).narrow(0, 0, n);
    return new Quantized(q.codes(), new Nested(codes.contiguous(), scale.contiguous(), offset, n), q.shape());
  }

  /** The 15 decision thresholds, float32 midpoints of adjacent code values (computed in double, as published). */
  static float[] thresholds() {
    float[] t = new float[CODE.length - 1];
    for (int i = 0; i < t.length; i++) t[i] = (float) (((double) CODE[i] + (double) CODE[i + 1]) / 2);
    return t;
  }

  private static final Tensor THRESHOLDS = held(Tensors.ofFloats(thresholds()));

  /** {@code w} (any float dtype, any shape) in NF4; {@code name} names it when it holds a non-finite value. */
  public static Quantized quantize(Tensor w, String name) {
    long n = w.numel();
    long blocks = (n + BLOCK - 1) / BLOCK;
    Tensor flat = Quant.padded(w.reshape(-1).to(Float), blocks * BLOCK).view(blocks, BLOCK);
    Tensor absmax = flat.abs().amax(new long[] {1}, false);
    Quant.requireFinite(absmax, name, "NF4"); // amax keeps NaN and inf: a pass over the blocks, not the weight
    Tensor inv = Quant.reciprocalOrZero(absmax);
    Tensor scaled = flat.mul(inv.unsqueeze(1));
    Tensor codes = torch.bucketize(scaled, THRESHOLDS, true, false) // int32 codes, not int64
       .to(Byte).view(-1);
    Tensor pairs = codes.view(-1, 2);
    Tensor packed = pairs.select(1, 0).bitwise_left_shift(new Scalar(4)).bitwise_or(pairs.select(1, 1));
    return new Quantized(packed.narrow(0, 0, (n + 1) / 2).contiguous(), absmax.contiguous(), w.sizes().vec().get());
  }

  /** The fp32 tensor {@code q} stands for, in its original shape. */
  public static Tensor dequantize(Quantized q) {
    Tensor out = Tensors.empty(Float, paddedLength(q));
    return dequantizeInto(q, out).view(q.shape());
  }

  /** Elements {@link #dequantizeInto} writes: whole blocks of 64 (at least the tensor's). */
  public static long paddedLength(Quantized q) { return q.blocks() * BLOCK; }

  /**
   * Blocks made per piece by {@link #dequantizeInto}: its int32 index, and a 16-bit caller's fp32 scratch ({@code
   * FrozenBase}), are this small (1M elements) whatever the tensor; at Llama-3.1-8B's fused gate and up projections
   * (117M weights) a whole index was 235 MB and a whole fp32 weight 470 MB.
   */
  public static final long PIECE_BLOCKS = 1 << 14;

  /**
   * The tensor {@code q} stands for, written into the first {@link #paddedLength} elements of {@code out} (flat
   * contiguous fp32; elements past the tensor's own are overwritten with the last block's padding): the first numel
   * elements, flat. A caller that reuses one {@code out} makes no allocation of the weight's size per call.
   */
  public static Tensor dequantizeInto(Quantized q, Tensor out) {
    inPieces(q, (from, count) -> {
      try (Tensor piece = out.narrow(0, from * BLOCK, count * BLOCK)) {
        dequantizeBlocksInto(q, from, count, piece);
      }
    });
    return out.narrow(0, 0, q.numel());
  }

  /** Blocks [{@code from}, {@code from + count}) of a tensor in NF4. */
  @FunctionalInterface
  public interface Piece {
    void accept(long from, long count);
  }

  /** {@code piece} for each run of at most {@link #PIECE_BLOCKS} blocks of {@code q}, in order: the one walk every piecewise maker takes. */
  public static void inPieces(Quantized q, Piece piece) {
    long blocks = q.blocks();
    for (long b = 0; b < blocks; b += PIECE_BLOCKS) piece.accept(b, Math.min(PIECE_BLOCKS, blocks - b));
  }

  /**
   * Blocks [{@code from}, {@code from + count}) of {@code q} written into the first {@code count} × 64 elements of {@code
   * out} (flat contiguous fp32; past the tensor's end, the last block's padding).
   */
  public static void dequantizeBlocksInto(Quantized q, long from, long count, Tensor out) {
    long pairs = q.codes().numel(), p0 = from * BLOCK / 2, p1 = Math.min(pairs, (from + count) * BLOCK / 2);
    // each byte looks up its two values at once in a 256 × 2 table, by an int32 index (4 bytes an element pair, not
    // two int64 indices); then each block of 64 is scaled in place by its absmax, broadcast (no per-element copy)
    try (org.bytedeco.javacpp.PointerScope scope = new org.bytedeco.javacpp.PointerScope()) {
      Tensor index = q.codes().narrow(0, p0, p1 - p0).to(Int);
      torch.index_select_out(out.narrow(0, 0, 2 * (p1 - p0)).view(p1 - p0, 2), PAIRS, 0, index);
      if (count * BLOCK > 2 * (p1 - p0)) out.narrow(0, 2 * (p1 - p0), count * BLOCK - 2 * (p1 - p0)).zero_();
      out.narrow(0, 0, count * BLOCK).view(count, BLOCK).mul_(q.scales().slice(from, count).unsqueeze(1));
    }
  }

  /** The two values byte b stands for: {CODE[b >> 4], CODE[b & 15]}, float32 [256, 2]. */
  private static final Tensor PAIRS = pairs();

  private static Tensor pairs() {
    float[] t = new float[512];
    for (int b = 0; b < 256; b++) {
      t[2 * b] = CODE[b >> 4];
      t[2 * b + 1] = CODE[b & 15];
    }
    return held(Tensors.ofFloats(t).view(256, 2));
  }

  /** {@code table} held for the process's life, whatever PointerScope the class is first used in. */
  private static Tensor held(Tensor table) {
    if (table.referenceCount() > 0) table.retainReference();
    return table;
  }
}
