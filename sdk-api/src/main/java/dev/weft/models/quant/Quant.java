package dev.weft.models.quant;

import static org.bytedeco.pytorch.global.torch.ScalarType.Float;

import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/** Pieces NF4 and int8 share. */
final class Quant {
  private Quant() {}

  /** Refuses a tensor holding ±inf or NaN (given its absmax per block or row: amax propagates both), naming it. */
  static void requireFinite(Tensor w, String name, String format) {
    if (!torch.isfinite(w).all().item_bool()) {
      throw new IllegalArgumentException(name + " holds ±inf or NaN; " + format + " quantises finite weights only: fix or "
          + "re-export the checkpoint, or train without train.lora.quantize");
    }
  }

  /** 1 / x in fp32, 0 where x is 0 (a block or row of zeros quantises to the code of 0). */
  static Tensor reciprocalOrZero(Tensor x) {
    Tensor zero = x.eq(new Scalar(0.0f));
    return torch.where(zero, torch.zeros_like(x), torch.reciprocal(x.masked_fill(zero, new Scalar(1.0f))));
  }

  /** {@code flat} with zeros after it up to {@code length}. */
  static Tensor padded(Tensor flat, long length) {
    if (flat.numel() == length) return flat;
    Tensor out = torch.zeros(new long[] {length}, new org.bytedeco.pytorch.TensorOptions(Float));
    out.narrow(0, 0, flat.numel()).copy_(flat);
    return out;
  }
}
