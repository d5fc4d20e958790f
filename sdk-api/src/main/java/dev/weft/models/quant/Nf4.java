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
 * Non-finite weights are refused (an absmax of ±inf or NaN would zero or poison the whole block).
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

  /** A tensor in NF4: {@code codes} uint8 [ceil(n/2)], {@code absmax} float32 [ceil(n/64)], and the original shape. */
  public record Quantized(Tensor codes, Tensor absmax, long[] shape) {
    public long numel() {
      long n = 1;
      for (long s : shape) n *= s;
      return n;
    }

    /** Bytes held: codes and scales. */
    public long bytes() { return codes.numel() + 4 * absmax.numel(); }
  }

  /** The 15 decision thresholds, float32 midpoints of adjacent code values (computed in double, as published). */
  static float[] thresholds() {
    float[] t = new float[CODE.length - 1];
    for (int i = 0; i < t.length; i++) t[i] = (float) (((double) CODE[i] + (double) CODE[i + 1]) / 2);
    return t;
  }

  /** {@code w} (any float dtype, any shape) in NF4; {@code name} names it when it holds a non-finite value. */
  public static Quantized quantize(Tensor w, String name) {
    long n = w.numel();
    long blocks = (n + BLOCK - 1) / BLOCK;
    Tensor flat = Quant.padded(w.reshape(-1).to(Float), blocks * BLOCK).view(blocks, BLOCK);
    Tensor absmax = flat.abs().amax(new long[] {1}, false);
    Quant.requireFinite(absmax, name, "NF4"); // amax keeps NaN and inf: a pass over the blocks, not the weight
    Tensor inv = Quant.reciprocalOrZero(absmax);
    Tensor scaled = flat.mul(inv.unsqueeze(1));
    Tensor codes = torch.bucketize(scaled, Tensors.ofFloats(thresholds()), true, false) // int32 codes, not int64
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
  public static long paddedLength(Quantized q) { return q.absmax().numel() * BLOCK; }

  /**
   * The tensor {@code q} stands for, written into the first {@link #paddedLength} elements of {@code out} (flat
   * contiguous fp32; elements past the tensor's own are overwritten with the last block's padding): the first numel
   * elements, flat. A caller that reuses one {@code out} makes no allocation of the weight's size per call.
   */
  public static Tensor dequantizeInto(Quantized q, Tensor out) {
    long n = q.numel(), blocks = q.absmax().numel(), pairs = q.codes().numel();
    // each byte looks up its two values at once in a 256 × 2 table, by an int32 index (4 bytes an element pair, not
    // two int64 indices); then each block of 64 is scaled in place by its absmax, broadcast (no per-element copy)
    try (Tensor index = q.codes().to(Int)) {
      torch.index_select_out(out.narrow(0, 0, 2 * pairs).view(pairs, 2), PAIRS, 0, index);
    }
    if (blocks * BLOCK > 2 * pairs) out.narrow(0, 2 * pairs, blocks * BLOCK - 2 * pairs).zero_();
    out.narrow(0, 0, blocks * BLOCK).view(blocks, BLOCK).mul_(q.absmax().unsqueeze(1));
    return out.narrow(0, 0, n);
  }

  /** The two values byte b stands for: {CODE[b >> 4], CODE[b & 15]}, float32 [256, 2]. */
  private static final Tensor PAIRS = pairs();

  private static Tensor pairs() {
    float[] t = new float[512];
    for (int b = 0; b < 256; b++) {
      t[2 * b] = CODE[b >> 4];
      t[2 * b + 1] = CODE[b & 15];
    }
    Tensor table = Tensors.ofFloats(t).view(256, 2);
    if (table.referenceCount() > 0) table.retainReference(); // held for the process's life, whatever PointerScope the class is first used in
    return table;
  }
}
