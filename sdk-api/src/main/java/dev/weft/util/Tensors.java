package dev.weft.util;

import org.bytedeco.pytorch.MemoryFormatOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** Small tensor helpers the presets do not spell conveniently. */
public final class Tensors {
  private Tensors() {}

  /** {@code t}, made inside a PointerScope about to close, kept past it (a reference of its own). */
  public static Tensor outlive(Tensor t) {
    t.retainReference();
    return t;
  }

  /** {@code t} (kept by {@link #outlive}) handed to the caller's PointerScope, if any, in place of that reference. */
  public static Tensor adopt(Tensor t) {
    org.bytedeco.javacpp.PointerScope outer = org.bytedeco.javacpp.PointerScope.getInnerScope();
    if (outer != null) {
      outer.attach(t);
      t.releaseReference();
    }
    return t;
  }

  public static Tensor zeros(ScalarType type, long... shape) {
    return torch.zeros(shape, new TensorOptions(type));
  }

  public static Tensor empty(ScalarType type, long... shape) {
    return torch.empty(shape, new TensorOptions(type), new MemoryFormatOptional());
  }

  /** Zeros of {@code like}'s dtype on {@code like}'s device (flat buffers next to the parameters they hold). */
  public static Tensor zerosLike(Tensor like, long... shape) {
    return torch.zeros(shape, like.options());
  }

  /** Uninitialised, of {@code type}, on {@code like}'s device (receive buffers of a collective on that device). */
  public static Tensor emptyLike(Tensor like, ScalarType type, long... shape) {
    return torch.empty(shape, like.options().dtype(new org.bytedeco.pytorch.ScalarTypeOptional(type)), new MemoryFormatOptional());
  }

  /** Uninitialised, of {@code type}, on {@code device}. */
  public static Tensor empty(org.bytedeco.pytorch.Device device, ScalarType type, long... shape) {
    return torch.empty(shape, new TensorOptions(type).device(new org.bytedeco.pytorch.DeviceOptional(device)), new MemoryFormatOptional());
  }

  /** {@code t} taken out of the innermost PointerScope, so it outlives the step that made it (cached tables). */
  public static Tensor keep(Tensor t) {
    org.bytedeco.javacpp.PointerScope scope = org.bytedeco.javacpp.PointerScope.getInnerScope();
    if (scope != null) scope.detach(t);
    return t;
  }

  /** {@code t} itself when it is in host memory, else a copy there (reading a device tensor's elements from Java). */
  public static Tensor onHost(Tensor t) {
    return t.is_cpu() ? t : t.to(new org.bytedeco.pytorch.Device("cpu"), t.scalar_type());
  }

  /** A 1-D double tensor holding {@code values}. */
  public static Tensor ofDoubles(double... values) {
    Tensor t = empty(ScalarType.Double, values.length);
    new org.bytedeco.javacpp.DoublePointer(t.data_ptr()).put(values);
    return t;
  }

  public static double[] toDoubles(Tensor t) {
    Tensor c = onHost(t).contiguous().to(ScalarType.Double);
    double[] out = new double[(int) c.numel()];
    new org.bytedeco.javacpp.DoublePointer(c.data_ptr()).get(out);
    return out;
  }

  /** A 1-D float32 tensor holding {@code values}. */
  public static Tensor ofFloats(float... values) {
    Tensor t = empty(ScalarType.Float, values.length);
    new org.bytedeco.javacpp.FloatPointer(t.data_ptr()).put(values);
    return t;
  }

  /** A 1-D int64 tensor holding {@code values}. */
  public static Tensor ofLongs(long... values) {
    Tensor t = empty(ScalarType.Long, values.length);
    new org.bytedeco.javacpp.LongPointer(t.data_ptr()).put(values);
    return t;
  }

  public static long[] toLongs(Tensor t) {
    Tensor c = onHost(t).contiguous().to(ScalarType.Long);
    long[] out = new long[(int) c.numel()];
    new org.bytedeco.javacpp.LongPointer(c.data_ptr()).get(out);
    return out;
  }

  public static float[] toFloats(Tensor t) {
    Tensor c = onHost(t).contiguous().to(ScalarType.Float);
    float[] out = new float[(int) c.numel()];
    new org.bytedeco.javacpp.FloatPointer(c.data_ptr()).get(out);
    return out;
  }
}
