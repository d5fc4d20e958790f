package dev.weft.util;

import org.bytedeco.pytorch.MemoryFormatOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** Small tensor helpers the presets do not spell conveniently. */
public final class Tensors {
  private Tensors() {}

  public static Tensor zeros(ScalarType type, long... shape) {
    return torch.zeros(shape, new TensorOptions(type));
  }

  public static Tensor empty(ScalarType type, long... shape) {
    return torch.empty(shape, new TensorOptions(type), new MemoryFormatOptional());
  }

  /** A 1-D double tensor holding {@code values}. */
  public static Tensor ofDoubles(double... values) {
    Tensor t = empty(ScalarType.Double, values.length);
    new org.bytedeco.javacpp.DoublePointer(t.data_ptr()).put(values);
    return t;
  }

  public static double[] toDoubles(Tensor t) {
    Tensor c = t.contiguous().to(ScalarType.Double);
    double[] out = new double[(int) c.numel()];
    new org.bytedeco.javacpp.DoublePointer(c.data_ptr()).get(out);
    return out;
  }

  /** A 1-D int64 tensor holding {@code values}. */
  public static Tensor ofLongs(long... values) {
    Tensor t = empty(ScalarType.Long, values.length);
    new org.bytedeco.javacpp.LongPointer(t.data_ptr()).put(values);
    return t;
  }

  public static long[] toLongs(Tensor t) {
    Tensor c = t.contiguous().to(ScalarType.Long);
    long[] out = new long[(int) c.numel()];
    new org.bytedeco.javacpp.LongPointer(c.data_ptr()).get(out);
    return out;
  }

  public static float[] toFloats(Tensor t) {
    Tensor c = t.contiguous().to(ScalarType.Float);
    float[] out = new float[(int) c.numel()];
    new org.bytedeco.javacpp.FloatPointer(c.data_ptr()).get(out);
    return out;
  }
}
