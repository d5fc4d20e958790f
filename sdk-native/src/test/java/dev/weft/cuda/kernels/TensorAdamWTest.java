package dev.weft.cuda.kernels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.Test;

/** The tensor-level fused AdamW the sharded optimizer calls: CPU tensors run the C++ reference. */
class TensorAdamWTest {
  @Test
  void cpuTensorsTakeTheReferenceAndMatchTheAddressLevelStep() {
    SplittableRandom r = new SplittableRandom(3);
    AdamWConfig c = AdamWConfig.adamW(1e-2f, 0.1f);
    Tensor p = TorchData.gaussian(r, 1001, 1, false), g = TorchData.gaussian(r, 1001, 1, false);
    Tensor m = TorchData.floats(new float[1001]), v = TorchData.floats(new float[1001]);
    Tensor p2 = p.clone(), m2 = m.clone(), v2 = v.clone();
    Tensor copy = TorchData.empty(ScalarType.BFloat16, 1001);
    try (TensorAdamW adam = new TensorAdamW(c)) {
      adam.step(1, p, g, m, v, copy);
    }
    FusedAdamW.reference(c).step(1, TorchData.address(p2), TorchData.address(g), TorchData.address(m2),
        TorchData.address(v2), 0, 1001);
    assertThat(TorchData.toFloats(p)).containsExactly(TorchData.toFloats(p2));
    assertThat(TorchData.bits16(copy)).containsExactly(TorchData.bits16(p.to(ScalarType.BFloat16)));
  }

  @Test
  void mismatchedTensorsAreRejectedSayingWhatIsExpected() {
    Tensor f = TorchData.floats(new float[4]);
    try (TensorAdamW adam = new TensorAdamW(AdamWConfig.adamW(1e-3f, 0))) {
      assertThatThrownBy(() -> adam.step(1, f, TorchData.floats(new float[3]), f, f, null))
          .hasMessageContaining("contiguous Float tensors of 4 elements on CPU, got Float with 3 elements");
      assertThatThrownBy(() -> adam.step(1, f, f, f, f, TorchData.floats(new float[4])))
          .hasMessageContaining("BFloat16 tensors of 4 elements");
    }
  }

  @Test
  void configurationIsValidated() {
    assertThatThrownBy(() -> new AdamWConfig(1e-3f, 1f, 0.999f, 1e-8f, 0, true)).hasMessageContaining("beta1 must be in [0, 1)");
    assertThatThrownBy(() -> new AdamWConfig(1e-3f, 0.9f, 0.999f, 0, 0, true)).hasMessageContaining("eps must be > 0");
    assertThat(FusedAdamW.bytesMoved(10, true)).isEqualTo(300);
  }
}
