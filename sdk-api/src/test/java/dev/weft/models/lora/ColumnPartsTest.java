package dev.weft.models.lora;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.models.Init;
import dev.weft.models.Layers;
import dev.weft.models.Parameters.Param;
import dev.weft.models.layers.DenseLayers;
import dev.weft.spec.LoraSpec;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Column layers consumed apart ({@link Layers#columnParts}: each projection its own matmul and output, each LoRA
 * adapter added to its own projection) compute what the fused path (outputs concatenated, then sliced) computes: the
 * same parameters in the same order, outputs bit-exact, every gradient and the input's equal to rounding. One projection left
 * untargeted checks that it gets no adapter and passes its base output on.
 */
class ColumnPartsTest {
  private static final long[] OUTS = {48, 16, 16};
  private static final List<String> NAMES = List.of("m.q_proj", "m.k_proj", "m.v_proj");

  private static Layers layers(boolean lora) {
    DenseLayers dense = new DenseLayers(Init.Draws.seeded(3));
    return lora ? new LoraLayers(dense, new LoraSpec(4, 8, 0, List.of("q_proj", "v_proj"), false, "", "none"), 5) : dense;
  }

  /** q·k and v summed over an input x, so every part's gradient differs. */
  private static Tensor loss(Tensor[] parts) {
    return parts[0].narrow(-1, 0, 16).mul(parts[1]).sum().add(torch.tanh(parts[2]).sum()).add(parts[0].pow(new Scalar(2)).sum());
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void partsComputeWhatTheFusedOutputSliced(boolean lora) {
    Layers fusedLayers = layers(lora), partLayers = layers(lora);
    Layers.Columns fused = Layers.Columns.sliced(fusedLayers.columns(NAMES, 64, OUTS, 0.2, true), OUTS);
    Layers.Columns parts = partLayers.columnParts(NAMES, 64, OUTS, 0.2, true);
    List<Param> a = fusedLayers.parameters().list(), b = partLayers.parameters().list();
    assertThat(b.stream().map(Param::name).toList()).isEqualTo(a.stream().map(Param::name).toList());
    if (lora) assertThat(b.stream().map(Param::name).filter(LoraLayers::isAdapter).toList()).hasSize(4).noneMatch(n -> n.contains("k_proj"));
    try (NoGradGuard ng = new NoGradGuard()) { // B away from zero, biases too: every term of the output matters
      for (int i = 0; i < a.size(); i++) {
        Tensor v = Init.normalFull(9, a.get(i).name(), 0.1, a.get(i).tensor().sizes().vec().get());
        a.get(i).tensor().copy_(v);
        b.get(i).tensor().copy_(v);
      }
    }
    Tensor x1 = Init.normalFull(4, "x", 1.0, 2, 5, 64).requires_grad_(true), x2 = x1.detach().clone().requires_grad_(true);
    Tensor[] ya = fused.forward(x1), yb = parts.forward(x2);
    for (int i = 0; i < ya.length; i++) assertThat(torch.equal(ya[i], yb[i])).as("output " + i).isTrue();
    loss(ya).backward();
    loss(yb).backward();
    assertThat(x1.grad().sub(x2.grad()).abs().max().item_double()).as("input gradient").isLessThan(1e-5);
    for (int i = 0; i < a.size(); i++) {
      Tensor ga = a.get(i).tensor().grad(), gb = b.get(i).tensor().grad();
      assertThat(ga.defined()).as(a.get(i).name()).isEqualTo(gb.defined());
      // the fused path's slices of the output gradient are strided views: the matmul may round them differently
      if (ga.defined()) assertThat(ga.sub(gb).abs().max().item_double()).as(a.get(i).name()).isLessThanOrEqualTo(1e-6 * ga.abs().max().item_double());
    }
  }
}
