package dev.weft.models.quant;

import static org.bytedeco.pytorch.global.torch.ScalarType.Char;
import static org.bytedeco.pytorch.global.torch.ScalarType.Float;

import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;

/**
 * 8-bit absmax per row: LLM.int8's vector-wise quantisation of a weight's rows (Dettmers et al., 2022), without its
 * fp16 outlier columns. Layout: {@code q} int8 [rows, cols] and {@code scale} float32 [rows] with scale = absmax_row /
 * 127; q = round-half-even(w · (127 / absmax_row)) in fp32 (as bitsandbytes' row quantisation computes it), 0 on a row
 * of zeros (scale 0); {@code dequant = q · scale[row]} in fp32. A weight of more than two dimensions is read as
 * [shape[0], the rest].
 */
public final class Int8 {
  private Int8() {}

  /** A weight in int8 rows: {@code q} int8 [rows, cols], {@code scale} float32 [rows], and the original shape. */
  public record Quantized(Tensor q, Tensor scale, long[] shape) {
    public long bytes() { return q.numel() + 4 * scale.numel(); }
  }

  public static Quantized quantize(Tensor w, String name) {
    long[] shape = w.sizes().vec().get();
    Tensor rows = w.reshape(shape.length == 0 ? 1 : shape[0], -1).to(Float);
    Tensor absmax = rows.abs().amax(new long[] {1}, false);
    Quant.requireFinite(absmax, name, "int8"); // amax keeps NaN and inf: a pass over the rows, not the weight
    Tensor inv = Quant.reciprocalOrZero(absmax).mul(new Scalar(127.0f)); // 127 / absmax as one fp32 division
    Tensor q = rows.mul(inv.unsqueeze(1)).round().to(Char);
    return new Quantized(q.contiguous(), absmax.div(new Scalar(127.0f)).contiguous(), shape);
  }

  public static Tensor dequantize(Quantized q) { return q.q().to(Float).mul(q.scale().unsqueeze(1)).view(q.shape()); }

  /** As {@link #dequantize}, written flat into {@code out} (contiguous fp32 of at least q's elements); returns that part. */
  public static Tensor dequantizeInto(Quantized q, Tensor out) {
    Tensor mine = out.narrow(0, 0, q.q().numel());
    dequantizeRowsInto(q, 0, q.q().size(0), mine);
    return mine;
  }

  /** Rows [{@code from}, {@code from + count}) of {@code q} written flat into the start of {@code out} (contiguous fp32). */
  public static void dequantizeRowsInto(Quantized q, long from, long count, Tensor out) {
    long cols = q.q().size(1);
    try (org.bytedeco.javacpp.PointerScope scope = new org.bytedeco.javacpp.PointerScope()) {
      out.narrow(0, 0, count * cols).view(count, cols).copy_(q.q().narrow(0, from, count))
          .mul_(q.scale().narrow(0, from, count).unsqueeze(1));
    }
  }
}
