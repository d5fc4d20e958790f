package dev.weft.models.quant;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.models.Init;
import dev.weft.models.Layers;
import dev.weft.models.Parameters.Param;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every projection of a compressed base makes its weight in one shared buffer: a fused projection whose parts end
 * mid-block (NF4 writes whole blocks of 64, past the part's own rows) and a smaller projection made after it still
 * multiply by exactly their dequantised weights, bit for bit, called in any order.
 */
class MadeWeightBufferTest {
  @ParameterizedTest
  @ValueSource(strings = {"nf4", "nf4-dq", "int8", "bf16"})
  void eachProjectionMultipliesByItsOwnWeight(String format) {
    // 3 × 7 and 5 × 7: parts of 21 and 35 elements, neither a whole NF4 block; a 2 × 7 one after them
    Param q = param("q.weight", 3), k = param("k.weight", 5), o = param("o.weight", 2);
    Tensor[] expected = {dequantised(q.tensor(), format), dequantised(k.tensor(), format), dequantised(o.tensor(), format)};
    FrozenBase base = new FrozenBase(FrozenBase.Format.of(format));
    Layers.Linear qk = base.linear(List.of(q, k), List.of()), small = base.linear(List.of(o), List.of());
    base.compressAll();
    Tensor x = Init.normalFull(4, "x", 1.0, 4, 7);
    try (NoGradGuard ng = new NoGradGuard()) {
      for (int round = 0; round < 2; round++) { // the small one after the fused one, then the fused one again
        Tensor fused = qk.forward(x), alone = small.forward(x);
        assertThat(torch.equal(fused, torch.linear(x, torch.cat(new TensorVector(expected[0], expected[1]))))).as("q and k").isTrue();
        assertThat(torch.equal(alone, torch.linear(x, expected[2]))).as("o").isTrue();
      }
    }
  }

  /**
   * Under a 16-bit autocast the weight is made in that dtype (once, not made in fp32 and cast per call; a bf16-held
   * weight used as held): the output and the input's gradient are exactly autocast's over the dequantised fp32 weight.
   */
  @ParameterizedTest
  @ValueSource(strings = {"nf4", "nf4-dq", "int8", "bf16", "fp16"})
  void underBf16AutocastTheProductIsAutocastsOverTheDequantisedWeight(String format) {
    Param q = param("q.weight", 3), k = param("k.weight", 5);
    Tensor w = torch.cat(new TensorVector(dequantised(q.tensor(), format), dequantised(k.tensor(), format)));
    FrozenBase base = new FrozenBase(FrozenBase.Format.of(format));
    Layers.Linear qk = base.linear(List.of(q, k), List.of()), k1 = base.linear(List.of(k), List.of());
    base.compressAll();
    for (Layers.Linear layer : List.of(qk, k1)) {
      Tensor ref = layer == qk ? w : w.narrow(0, 3, 5);
      Tensor x = Init.normalFull(5, "x", 1.0, 4, 7).requires_grad_(true), xr = x.detach().clone().requires_grad_(true);
      Tensor y, yr;
      try (dev.weft.precision.Autocast ac = dev.weft.precision.Autocast.of("bf16")) {
        y = layer.forward(x);
        yr = torch.linear(xr, ref, new org.bytedeco.pytorch.TensorOptional());
      }
      assertThat(y.scalar_type().value).as("a 16-bit output, as a plain linear's").isEqualTo(torch.ScalarType.BFloat16.value);
      assertThat(torch.equal(y, yr)).as("output").isTrue();
      Tensor dy = Init.normalFull(6, "dy", 1.0, 4, y.size(1)).to(torch.ScalarType.BFloat16);
      y.backward(dy, new org.bytedeco.pytorch.BoolOptional(), false, new org.bytedeco.pytorch.TensorArrayRefOptional());
      yr.backward(dy, new org.bytedeco.pytorch.BoolOptional(), false, new org.bytedeco.pytorch.TensorArrayRefOptional());
      assertThat(torch.equal(x.grad(), xr.grad())).as("dX").isTrue();
    }
  }

  /**
   * A weight of more than one piece (NF4 and int8 are made a piece of ~1M elements at a time, the last one short; NF4's
   * last block short too) gives under bf16 autocast exactly autocast's product over the whole dequantised fp32 weight,
   * fused after a small part and alone.
   */
  @ParameterizedTest
  @ValueSource(strings = {"nf4", "nf4-dq", "int8"})
  void aWeightOfSeveralPiecesIsMadeAsAWholeOneWouldBe(String format) {
    long cols = 1031, rows = 2 * FrozenBase.PIECE / cols + 3; // two whole pieces and a short third; 1031 · rows is no multiple of 64
    Param small = param("s.weight", 3), big = new Param("b.weight", Init.normalFull(9, "b", 0.02, rows, cols), new long[] {rows, cols}, -1, 0, 1);
    Param small2 = new Param("s2.weight", Init.normalFull(10, "s2", 0.02, 3, cols), new long[] {3, cols}, -1, 0, 1);
    Tensor w = torch.cat(new TensorVector(dequantised(small2.tensor(), format), dequantised(big.tensor(), format)));
    FrozenBase base = new FrozenBase(FrozenBase.Format.of(format));
    Layers.Linear fused = base.linear(List.of(small2, big), List.of()), alone = base.linear(List.of(big), List.of());
    base.linear(List.of(small), List.of());
    base.compressAll();
    Tensor x = Init.normalFull(11, "x", 1.0, 2, cols);
    try (NoGradGuard ng = new NoGradGuard(); dev.weft.precision.Autocast ac = dev.weft.precision.Autocast.of("bf16")) {
      assertThat(torch.equal(fused.forward(x), torch.linear(x, w, new org.bytedeco.pytorch.TensorOptional()))).as("fused").isTrue();
      assertThat(torch.equal(alone.forward(x), torch.linear(x, w.narrow(0, 3, rows), new org.bytedeco.pytorch.TensorOptional())))
          .as("alone").isTrue();
    }
    try (NoGradGuard ng = new NoGradGuard()) { // and in fp32, made whole in the fp32 buffer a piece at a time
      assertThat(torch.equal(fused.forward(x), torch.linear(x, w, new org.bytedeco.pytorch.TensorOptional()))).as("fp32").isTrue();
    }
  }

  private static Param param(String name, long rows) {
    return new Param(name, Init.normalFull(rows, name, 1.0, rows, 7), new long[] {rows, 7}, -1, 0, 1);
  }

  private static Tensor dequantised(Tensor w, String format) {
    return switch (format) {
      case "nf4" -> Nf4.dequantize(Nf4.quantize(w, "w"));
      case "nf4-dq" -> Nf4.dequantize(Nf4.nest(Nf4.quantize(w, "w")));
      case "int8" -> Int8.dequantize(Int8.quantize(w, "w"));
      case "fp16" -> w.to(torch.ScalarType.Half).to(torch.ScalarType.Float);
      default -> w.to(torch.ScalarType.BFloat16).to(torch.ScalarType.Float);
    };
  }
}
