package dev.weft.models.quant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.models.Init;
import dev.weft.testing.PythonRef;
import dev.weft.util.Tensors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NF4 and int8 quantisation and dequantisation equal an independent NumPy implementation of the published definitions
 * (bitsandbytes' NF4 code and decision thresholds, blocks of 64, absmax per block; LLM.int8's absmax per row) bit for
 * bit, and so does NF4's double quantisation of its absmax values (bitsandbytes' signed dynamic 8-bit map, blocks of
 * 256 less their mean): on random tensors of odd sizes, a real-shaped projection, a block of zeros, constant blocks;
 * non-finite weights are refused in one line naming the tensor.
 */
class QuantizationReferenceTest {
  @TempDir Path dir;

  /** NumPy: reads in.f32 ([rows, cols]), writes nf4 codes / absmax / dequant and int8 q / scale / dequant. */
  private static final String REFERENCE = """
      import sys, numpy as np
      d = sys.argv[1]; rows, cols = int(sys.argv[2]), int(sys.argv[3])
      w = np.fromfile(d + '/in.f32', dtype='<f4').reshape(rows, cols)
      CODE = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
          -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
          0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0])
      code32 = CODE.astype(np.float32)
      thresholds = ((CODE[:-1] + CODE[1:]) / 2).astype(np.float32)
      flat = w.reshape(-1); n = flat.size; nb = -(-n // 64)
      blocks = np.zeros(nb * 64, np.float32); blocks[:n] = flat; blocks = blocks.reshape(nb, 64)
      absmax = np.abs(blocks).max(axis=1).astype(np.float32)
      with np.errstate(divide='ignore'):
          inv = np.where(absmax == 0, np.float32(0), np.float32(1) / absmax).astype(np.float32)
      x = (blocks * inv[:, None]).astype(np.float32)
      codes = (x[..., None] > thresholds).sum(-1).astype(np.uint8).reshape(-1)
      # the thresholds pick the nearest code wherever x is not within float rounding of a midpoint
      nearest = np.abs(x.reshape(-1)[:, None].astype(np.float64) - CODE).argmin(-1)
      far = np.abs(x.reshape(-1)[:, None] - thresholds).min(-1) > 1e-6
      assert (nearest[far] == codes[far]).all()
      packed = ((codes[0::2] << 4) | codes[1::2]).astype(np.uint8)[: (n + 1) // 2]
      idx = np.stack([packed >> 4, packed & 15], 1).reshape(-1)[:n]
      deq = (code32[idx] * np.repeat(absmax, 64)[:n]).astype(np.float32)
      packed.tofile(d + '/nf4_codes.u8'); absmax.tofile(d + '/nf4_absmax.f32'); deq.tofile(d + '/nf4_deq.f32')
      # double quantisation of the absmax values: bitsandbytes' signed dynamic map, blocks of 256, less their mean
      data = []
      for i, pw in enumerate([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0]):
          b = np.linspace(0.1, 1.0, 2 ** i + 1); means = (b[:-1] + b[1:]) / 2
          data += list((pw * means).astype(np.float32)) + list((-pw * means).astype(np.float32))
      dyn = np.sort(np.array(data + [0.0, 1.0], np.float32)); assert dyn.size == 256 and np.unique(dyn).size == 256
      dth = ((dyn[:-1].astype(np.float64) + dyn[1:].astype(np.float64)) / 2).astype(np.float32)
      offset = np.float32(absmax.astype(np.float64).mean())
      g = -(-nb // 256); c = np.zeros(g * 256, np.float32); c[:nb] = absmax - offset; c = c.reshape(g, 256)
      a2 = np.abs(c).max(axis=1).astype(np.float32)
      with np.errstate(divide='ignore'):
          inv2 = np.where(a2 == 0, np.float32(0), np.float32(1) / a2).astype(np.float32)
      codes2 = ((c * inv2[:, None]).astype(np.float32)[..., None] > dth).sum(-1).astype(np.uint8).reshape(-1)[:nb]
      absmax_dq = ((dyn[codes2] * np.repeat(a2, 256)[:nb]).astype(np.float32) + offset).astype(np.float32)
      codes2.tofile(d + '/dq_codes.u8'); a2.tofile(d + '/dq_absmax.f32'); np.array([offset], np.float32).tofile(d + '/dq_offset.f32')
      dyn.tofile(d + '/dq_map.f32'); absmax_dq.tofile(d + '/dq_deq_absmax.f32')
      (code32[idx] * np.repeat(absmax_dq, 64)[:n]).astype(np.float32).tofile(d + '/dq_deq.f32')
      ra = np.abs(w).max(axis=1).astype(np.float32)
      with np.errstate(divide='ignore'):
          rinv = np.where(ra == 0, np.float32(0), np.float32(1) / ra).astype(np.float32) * np.float32(127)
      q = np.round((w * rinv[:, None]).astype(np.float32)).astype(np.int8)
      scale = (ra / np.float32(127)).astype(np.float32)
      q.tofile(d + '/int8_q.i8'); scale.tofile(d + '/int8_scale.f32')
      (q.astype(np.float32) * scale[:, None]).astype(np.float32).tofile(d + '/int8_deq.f32')
      """;

  private void reference(float[] w, long rows, long cols) throws Exception {
    ByteBuffer b = ByteBuffer.allocate(4 * w.length).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : w) b.putFloat(v);
    Files.write(dir.resolve("in.f32"), b.array());
    Process p = new ProcessBuilder(PythonRef.python(), "-c", REFERENCE, dir.toString(), "" + rows, "" + cols).redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(said).isZero();
  }

  private ByteBuffer file(String name) throws IOException { return ByteBuffer.wrap(Files.readAllBytes(dir.resolve(name))).order(ByteOrder.LITTLE_ENDIAN); }

  /** Every element's bits (floats) or value (integers) against the file's, all of them. */
  private void sameFloats(Tensor t, String name) throws IOException {
    double[] ours = Tensors.toDoubles(t);
    ByteBuffer ref = file(name);
    assertThat(ref.remaining()).as(name).isEqualTo(4 * ours.length);
    int differ = 0;
    for (double v : ours) if (Float.floatToRawIntBits((float) v) != Float.floatToRawIntBits(ref.getFloat())) differ++;
    assertThat(differ).as(name + ": elements that differ").isZero();
  }

  private void sameBytes(Tensor t, String name, boolean signed) throws IOException {
    double[] ours = Tensors.toDoubles(t);
    ByteBuffer ref = file(name);
    assertThat(ref.remaining()).as(name).isEqualTo(ours.length);
    int differ = 0;
    for (double v : ours) {
      byte r = ref.get();
      if ((long) v != (signed ? r : Byte.toUnsignedInt(r))) differ++;
    }
    assertThat(differ).as(name + ": elements that differ").isZero();
  }

  private void check(Tensor w) throws Exception {
    long rows = w.size(0), cols = w.size(1);
    reference(floats(w), rows, cols);
    Nf4.Quantized nf4 = Nf4.quantize(w, "w");
    assertThat(nf4.codes().numel()).isEqualTo((w.numel() + 1) / 2);
    assertThat(nf4.absmax().numel()).isEqualTo((w.numel() + 63) / 64);
    sameBytes(nf4.codes(), "nf4_codes.u8", false);
    sameFloats(nf4.absmax(), "nf4_absmax.f32");
    Tensor deq = Nf4.dequantize(nf4);
    assertThat(deq.sizes().vec().get()).containsExactly(rows, cols);
    sameFloats(deq, "nf4_deq.f32");
    Nf4.Quantized dq = Nf4.nest(nf4);
    Nf4.Nested nested = (Nf4.Nested) dq.scales();
    sameFloats(Tensors.ofFloats(Nf4.DYNAMIC), "dq_map.f32");
    sameBytes(nested.codes(), "dq_codes.u8", false);
    sameFloats(nested.absmax(), "dq_absmax.f32");
    sameFloats(Tensors.ofFloats(new float[] {nested.offset()}), "dq_offset.f32");
    sameFloats(dq.absmax(), "dq_deq_absmax.f32");
    sameFloats(Nf4.dequantize(dq), "dq_deq.f32");
    assertThat(dq.bytes()).isEqualTo(nf4.codes().numel() + nf4.blocks() + 4 * ((nf4.blocks() + 255) / 256) + 4);
    Int8.Quantized i8 = Int8.quantize(w, "w");
    sameBytes(i8.q(), "int8_q.i8", true);
    sameFloats(i8.scale(), "int8_scale.f32");
    sameFloats(Int8.dequantize(i8), "int8_deq.f32");
  }

  private static float[] floats(Tensor t) {
    double[] d = Tensors.toDoubles(t);
    float[] f = new float[d.length];
    for (int i = 0; i < d.length; i++) f[i] = (float) d[i];
    return f;
  }

  @Test
  void randomAndSpecialBlocksEqualTheReference() throws Exception {
    PythonRef.require("numpy");
    Tensor w = Init.normalFull(5, "w", 0.02, 37, 83); // odd: a short last block and a lone last nibble
    w.narrow(1, 0, 64).select(0, 3).zero_();            // zeros (a whole row for int8)
    w.view(-1).narrow(0, 64 * 10, 64).fill_(new Scalar(0.25f)); // a constant block
    w.view(-1).narrow(0, 64 * 12, 64).fill_(new Scalar(-3.0f)); // a negative constant block
    w.select(0, 20).mul_(new Scalar(1000.0f));          // an outlier row
    check(w);
  }

  @Test
  void aRealShapedProjectionEqualsTheReference() throws Exception {
    PythonRef.require("numpy");
    check(Init.normalFull(6, "q_proj", 0.02, 896, 896)); // Qwen2.5-0.5B's q_proj
  }

  @Test
  void aTensorOfSeveralDequantisationPiecesEqualsTheReference() throws Exception {
    PythonRef.require("numpy");
    check(Init.normalFull(8, "up_proj", 0.02, 2 * Nf4.PIECE_BLOCKS * Nf4.BLOCK / 1031 + 5, 1031)); // two pieces and a short third
  }

  @Test
  void dequantisedNf4IsCloseToTheWeights() {
    Tensor w = Init.normalFull(7, "w", 1.0, 64, 64);
    Tensor err = Nf4.dequantize(Nf4.quantize(w, "w")).sub(w).abs();
    // half the widest gap between codes (0.30 at the tails) times the block's absmax bounds each element's error
    assertThat(err.max().item_double()).isLessThan(0.16 * w.abs().max().item_double());
    assertThat(err.mean().item_double()).isLessThan(0.1);
    assertThat(Int8.dequantize(Int8.quantize(w, "w")).sub(w).abs().max().item_double()).isLessThan(0.5 / 127 * w.abs().max().item_double() + 1e-6);
  }

  @Test
  void nonFiniteWeightsAreRefusedNamingTheTensor() {
    for (float bad : new float[] {Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN}) {
      Tensor w = torch.ones(4, 70);
      w.select(0, 2).select(0, 5).fill_(new Scalar(bad));
      assertThatThrownBy(() -> Nf4.quantize(w, "model.layers.3.mlp.up_proj.weight"))
          .hasMessageStartingWith("model.layers.3.mlp.up_proj.weight holds ±inf or NaN").hasMessageNotContaining("\n");
      assertThatThrownBy(() -> Int8.quantize(w, "model.layers.3.mlp.up_proj.weight"))
          .hasMessageStartingWith("model.layers.3.mlp.up_proj.weight holds ±inf or NaN");
    }
  }
}
