package dev.weft.cuda.kernels;

import static dev.weft.cuda.kernels.TorchData.address;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;

/**
 * The C++ references of the NF4 / int8 dequantization kernels (which the GPU check compares the kernels against, bit
 * for bit) against the published definitions written out here independently: QLoRA's NormalFloat table, element 2i in
 * a byte's high nibble, one absmax per 64 elements; int8 times a per-row scale. bf16 output against libtorch's
 * fp32→bf16 rounding of the same products.
 */
class DequantReferenceTest {
  private static final ReferenceKernels REF = new ReferenceKernels();

  /** QLoRA (Dettmers et al. 2023), Appendix E / bitsandbytes' NF4 code, in code order 0..15. */
  private static final double[] NF4 = {-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
      -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
      0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0};

  @Test
  void highNibbleIsTheEvenElement() {
    // byte 0 = 0x0F: element 0 is code 0 (-1), element 1 code 15 (+1); byte 1 = 0x7?: element 2 is code 7 (0)
    Tensor codes = bytes(new byte[] {0x0F, 0x7C});
    Tensor absmax = TorchData.floats(new float[] {2.5f});
    Tensor out = TorchData.empty(ScalarType.Float, 3);
    REF.dequantNf4(address(codes), address(absmax), address(out), 3, false);
    assertThat(TorchData.toFloats(out)).containsExactly(-2.5f, 2.5f, 0f);
  }

  @Property(tries = 40)
  void nf4MatchesTheTableTimesBlockAbsmax(@ForAll @IntRange(min = 0, max = 700) int n, @ForAll long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    byte[] code = new byte[(n + 1) / 2];
    for (int i = 0; i < code.length; i++) code[i] = (byte) r.nextInt(256);
    float[] absmax = TorchData.gaussianArray(r, (n + 63) / 64, 3, true);
    float[] want = new float[n];
    for (int i = 0; i < n; i++) {
      int b = code[i / 2] & 0xff, c = i % 2 == 0 ? b >>> 4 : b & 15;
      want[i] = (float) NF4[c] * absmax[i / 64];
    }
    Tensor codes = bytes(code), scales = TorchData.floats(absmax);
    assertOutputs(want, (out, bf16) -> REF.dequantNf4(address(codes), address(scales), address(out), n, bf16));
  }

  @Property(tries = 40)
  void int8MatchesQuantsTimesRowScale(@ForAll @IntRange(min = 0, max = 40) int rows, @ForAll @IntRange(min = 0, max = 70) int cols,
      @ForAll long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    byte[] q = new byte[rows * cols];
    for (int i = 0; i < q.length; i++) q[i] = (byte) r.nextInt(256);
    float[] scale = TorchData.gaussianArray(r, rows, 0.02, true);
    float[] want = new float[q.length];
    for (int i = 0; i < q.length; i++) want[i] = q[i] * scale[i / cols];
    Tensor qs = bytes(q), s = TorchData.floats(scale);
    assertOutputs(want, (out, bf16) -> REF.dequantInt8(address(qs), address(s), address(out), rows, cols, bf16));
  }

  interface Dequant { void into(Tensor out, boolean bf16); }

  /** fp32 output bit for bit; bf16 output equal to libtorch's rounding of {@code want}. */
  private static void assertOutputs(float[] want, Dequant d) {
    Tensor f = TorchData.empty(ScalarType.Float, want.length);
    d.into(f, false);
    float[] got = TorchData.toFloats(f);
    for (int i = 0; i < want.length; i++) assertThat(Float.floatToRawIntBits(got[i])).as("element %d", i).isEqualTo(Float.floatToRawIntBits(want[i]));
    Tensor h = TorchData.empty(ScalarType.BFloat16, want.length);
    d.into(h, true);
    assertThat(TorchData.bits16(h)).containsExactly(TorchData.bits16(TorchData.floats(want).to(ScalarType.BFloat16)));
  }

  private static Tensor bytes(byte[] b) {
    Tensor t = TorchData.empty(ScalarType.Byte, b.length);
    if (b.length > 0) new BytePointer(t.data_ptr()).put(b);
    return t;
  }
}
