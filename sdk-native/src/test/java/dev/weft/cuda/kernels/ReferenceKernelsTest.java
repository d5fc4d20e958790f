package dev.weft.cuda.kernels;

import static dev.weft.cuda.kernels.TorchData.address;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** The C++ CPU references agree with libtorch's own ops, over random sizes including empty and odd ones. */
class ReferenceKernelsTest {
  private static final Kernels REF = new ReferenceKernels();

  @Property(tries = 40)
  void adamStepMatchesLibtorchOps(@ForAll @IntRange(min = 0, max = 3000) int n, @ForAll long seed,
      @ForAll boolean decoupled, @ForAll @IntRange(min = 1, max = 200) int step, @ForAll boolean bf16) {
    SplittableRandom r = new SplittableRandom(seed);
    AdamWConfig c = new AdamWConfig(1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, decoupled);
    Tensor p = TorchData.gaussian(r, n, 1, false), g = TorchData.gaussian(r, n, 0.1, false);
    Tensor m = TorchData.gaussian(r, n, 0.01, false), v = TorchData.gaussian(r, n, 1e-4, true);
    Tensor tp = p.clone(), tg = g.clone(), tm = m.clone(), tv = v.clone();
    Tensor out = bf16 ? TorchData.empty(ScalarType.BFloat16, n) : null;

    REF.adamStep(c, step, address(p), address(g), address(m), address(v), out == null ? 0 : address(out), n);
    torchAdam(c, step, tp, tg, tm, tv);

    // Tolerances are a few ulps of the inputs' scale: libtorch fuses multiply-adds where the reference does not.
    assertClose(TorchData.toFloats(p), TorchData.toFloats(tp), 1e-6, 1, "param");
    assertClose(TorchData.toFloats(m), TorchData.toFloats(tm), 1e-6, 0.1, "exp_avg");
    assertClose(TorchData.toFloats(v), TorchData.toFloats(tv), 1e-6, 1e-4, "exp_avg_sq");
    if (out != null) assertThat(TorchData.bits16(out)).containsExactly(TorchData.bits16(p.to(ScalarType.BFloat16)));
  }

  /** torch.optim.Adam(W)'s single-tensor update, written with libtorch ops. */
  private static void torchAdam(AdamWConfig c, long step, Tensor p, Tensor g, Tensor m, Tensor v) {
    if (c.decoupled()) p.mul_(new Scalar(1 - c.lr() * c.weightDecay()));
    else g = g.add(p, new Scalar(c.weightDecay()));
    m.lerp_(g, new Scalar(1 - c.beta1()));
    v.mul_(new Scalar(c.beta2())).addcmul_(g, g, new Scalar(1 - c.beta2()));
    double stepSize = c.lr() / (1 - Math.pow(c.beta1(), step));
    double bc2Sqrt = Math.sqrt(1 - Math.pow(c.beta2(), step));
    Tensor denom = v.sqrt().div(new Scalar(bc2Sqrt)).add_(new Scalar(c.eps()));
    p.addcdiv_(m, denom, new Scalar(-stepSize));
  }

  @Property(tries = 60)
  void castsMatchLibtorchBitForBit(@ForAll @IntRange(min = 0, max = 5000) int n, @ForAll long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] src = new float[n];
    for (int i = 0; i < n; i++) src[i] = castInput(r);
    Tensor f = TorchData.floats(src);
    for (CastKind kind : new CastKind[] {CastKind.F32_TO_BF16, CastKind.F32_TO_F16}) {
      ScalarType type = kind == CastKind.F32_TO_BF16 ? ScalarType.BFloat16 : ScalarType.Half;
      Tensor mine = TorchData.empty(type, n);
      REF.cast(kind, address(f), address(mine), n);
      assertSameHalves(TorchData.bits16(mine), TorchData.bits16(f.to(type)), type == ScalarType.BFloat16, kind);
    }
    short[] bits = new short[n];
    for (int i = 0; i < n; i++) bits[i] = (short) r.nextInt();
    for (CastKind kind : new CastKind[] {CastKind.BF16_TO_F32, CastKind.F16_TO_F32}) {
      Tensor h = TorchData.fromBits16(bits, kind == CastKind.BF16_TO_F32 ? ScalarType.BFloat16 : ScalarType.Half);
      Tensor mine = TorchData.empty(ScalarType.Float, n);
      REF.cast(kind, address(h), address(mine), n);
      float[] expected = TorchData.toFloats(h.to(ScalarType.Float)), got = TorchData.toFloats(mine);
      for (int i = 0; i < n; i++) {
        if (Float.isNaN(expected[i])) assertThat(got[i]).as("%s of %04x", kind, bits[i]).isNaN();
        else assertThat(Float.floatToRawIntBits(got[i])).as("%s of %04x", kind, bits[i]).isEqualTo(Float.floatToRawIntBits(expected[i]));
      }
    }
  }

  private static float castInput(SplittableRandom r) {
    return switch (r.nextInt(4)) {
      case 0 -> Float.intBitsToFloat(r.nextInt());
      case 1 -> (float) (r.nextGaussian() * Math.scalb(1.0, r.nextInt(-30, 20)));
      case 2 -> new float[] {0f, -0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE,
          65504f, 65520f, 65519.996f, 5.9604645e-8f, 2.9802322e-8f, 1.00390625f, 3.0517578e-5f}[r.nextInt(13)];
      default -> (float) r.nextGaussian();
    };
  }

  private static void assertSameHalves(short[] got, short[] expected, boolean bfloat, CastKind kind) {
    for (int i = 0; i < got.length; i++) {
      if (TorchData.isNaN16(expected[i], bfloat)) assertThat(TorchData.isNaN16(got[i], bfloat)).as("%s NaN at %d", kind, i).isTrue();
      else assertThat(got[i]).as("%s at %d", kind, i).isEqualTo(expected[i]);
    }
  }

  @Property(tries = 40)
  void unscaleMatchesLibtorch(@ForAll @IntRange(min = 0, max = 80) int count, @ForAll long seed, @ForAll boolean poison) {
    SplittableRandom r = new SplittableRandom(seed);
    List<Tensor> mine = new ArrayList<>(), theirs = new ArrayList<>();
    long[] sizes = new long[count];
    for (int i = 0; i < count; i++) {
      sizes[i] = r.nextInt(4) == 0 ? 0 : r.nextInt(1, 700);
      float[] values = TorchData.gaussianArray(r, (int) sizes[i], 100, false);
      if (poison && sizes[i] > 0 && r.nextInt(3) == 0) {
        values[r.nextInt(values.length)] = r.nextBoolean() ? Float.NaN : Float.NEGATIVE_INFINITY;
      }
      Tensor t = TorchData.floats(values);
      mine.add(t);
      theirs.add(t.clone());
    }
    Tensor found = TorchData.floats(new float[] {0f});
    float inv = 1f / 65536;
    REF.unscaleCheck(mine.stream().mapToLong(TorchData::address).toArray(), sizes, inv, address(found));

    boolean expectInf = false;
    for (Tensor t : theirs) {
      expectInf |= !t.isfinite().all().item_bool();
      t.mul_(new Scalar(inv));
    }
    assertThat(TorchData.toFloats(found)[0]).isEqualTo(expectInf ? 1f : 0f);
    for (int i = 0; i < count; i++) {
      float[] a = TorchData.toFloats(mine.get(i)), b = TorchData.toFloats(theirs.get(i));
      for (int j = 0; j < a.length; j++) {
        if (Float.isNaN(b[j])) assertThat(a[j]).isNaN(); else assertThat(a[j]).isEqualTo(b[j]);
      }
    }
  }

  @Property(tries = 40)
  void packAndUnpackMatchCatAndSplit(@ForAll @IntRange(min = 0, max = 80) int count, @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 3) int sizeIndex) {
    SplittableRandom r = new SplittableRandom(seed);
    int elemSize = 1 << sizeIndex;
    ScalarType type = switch (elemSize) { case 1 -> ScalarType.Byte; case 2 -> ScalarType.Short; case 4 -> ScalarType.Int; default -> ScalarType.Long; };
    long[] sizes = new long[count];
    TensorVector parts = new TensorVector();
    long total = 0;
    for (int i = 0; i < count; i++) {
      sizes[i] = r.nextInt(4) == 0 ? 0 : r.nextInt(1, 500);
      total += sizes[i];
      parts.push_back(torch.randint(0, 100, new long[] {sizes[i]}, new org.bytedeco.pytorch.TensorOptions(type)));
    }
    long[] addresses = new long[count];
    for (int i = 0; i < count; i++) addresses[i] = address(parts.get(i));
    Tensor bucket = TorchData.empty(type, total);
    REF.pack(addresses, sizes, elemSize, address(bucket));
    if (count > 0) assertThat(bucket.equal(torch.cat(parts))).isTrue();

    Tensor source = torch.randint(0, 100, new long[] {total}, new org.bytedeco.pytorch.TensorOptions(type));
    REF.unpack(addresses, sizes, elemSize, address(source));
    TensorVector split = torch.split_with_sizes(source, sizes);
    for (int i = 0; i < count; i++) assertThat(parts.get(i).equal(split.get(i))).as("tensor %d", i).isTrue();
  }

  @Property(tries = 5)
  void invalidArgumentsAreRejectedWithAReason(@ForAll @IntRange(min = 3, max = 7) int badElemSize) {
    if (badElemSize == 4) return;
    assertThatThrownBy(() -> REF.pack(new long[] {0}, new long[] {0}, badElemSize, 0))
        .hasMessageContaining("element size not 1/2/4/8");
    assertThatThrownBy(() -> REF.adamStep(AdamWConfig.adamW(1e-3f, 0), 0, 0, 0, 0, 0, 0, 0))
        .hasMessageContaining("step < 1");
    assertThatThrownBy(() -> REF.unscaleCheck(new long[1], new long[2], 1, 0)).hasMessageContaining("1 tensor addresses but 2 sizes");
  }

  private static void assertClose(float[] got, float[] expected, double rel, double scale, String what) {
    assertThat(got).hasSameSizeAs(expected);
    for (int i = 0; i < got.length; i++) {
      double tol = rel * Math.max(Math.abs(expected[i]), scale);
      assertThat((double) got[i]).as("%s[%d]", what, i).isCloseTo(expected[i], org.assertj.core.data.Offset.offset(tol));
    }
  }
}
