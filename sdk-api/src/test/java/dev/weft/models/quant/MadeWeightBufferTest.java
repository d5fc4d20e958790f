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
  @ValueSource(strings = {"nf4", "int8", "bf16"})
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

  private static Param param(String name, long rows) {
    return new Param(name, Init.normalFull(rows, name, 1.0, rows, 7), new long[] {rows, 7}, -1, 0, 1);
  }

  private static Tensor dequantised(Tensor w, String format) {
    return switch (format) {
      case "nf4" -> Nf4.dequantize(Nf4.quantize(w, "w"));
      case "int8" -> Int8.dequantize(Int8.quantize(w, "w"));
      default -> w.to(torch.ScalarType.BFloat16).to(torch.ScalarType.Float);
    };
  }
}
