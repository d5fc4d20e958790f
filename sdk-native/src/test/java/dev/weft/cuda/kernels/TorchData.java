package dev.weft.cuda.kernels;

import java.util.SplittableRandom;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.ShortPointer;
import org.bytedeco.pytorch.MemoryFormatOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** libtorch CPU tensors for the tests: made from Java arrays, read back as arrays, passed to kernels by address. */
final class TorchData {
  private TorchData() {}

  static Tensor empty(ScalarType type, long n) {
    return torch.empty(new long[] {n}, new TensorOptions(type), new MemoryFormatOptional());
  }

  static Tensor floats(float[] values) {
    Tensor t = empty(ScalarType.Float, values.length);
    if (values.length > 0) new FloatPointer(t.data_ptr()).put(values);
    return t;
  }

  static Tensor gaussian(SplittableRandom r, int n, double scale, boolean positive) {
    return floats(gaussianArray(r, n, scale, positive));
  }

  static float[] gaussianArray(SplittableRandom r, int n, double scale, boolean positive) {
    float[] v = new float[n];
    for (int i = 0; i < n; i++) {
      double g = r.nextGaussian() * scale;
      v[i] = (float) (positive ? Math.abs(g) : g);
    }
    return v;
  }

  static float[] toFloats(Tensor t) {
    Tensor c = t.contiguous();
    float[] out = new float[(int) c.numel()];
    if (out.length > 0) new FloatPointer(c.data_ptr()).get(out);
    return out;
  }

  /** The raw 16-bit patterns of a bfloat16 or float16 tensor. */
  static short[] bits16(Tensor t) {
    Tensor c = t.contiguous();
    short[] out = new short[(int) c.numel()];
    if (out.length > 0) new ShortPointer(c.data_ptr()).get(out);
    return out;
  }

  static Tensor fromBits16(short[] bits, ScalarType type) {
    Tensor t = empty(type, bits.length);
    if (bits.length > 0) new ShortPointer(t.data_ptr()).put(bits);
    return t;
  }

  static long address(Tensor t) { return t.numel() == 0 ? 0 : t.data_ptr().address(); }

  static boolean isNaN16(short bits, boolean bfloat) {
    int b = bits & 0xffff;
    return bfloat ? (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0 : (b & 0x7c00) == 0x7c00 && (b & 0x3ff) != 0;
  }
}
