package dev.weft.models.lora;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.models.Init;
import dev.weft.models.Layers;
import dev.weft.models.Parameters.Param;
import dev.weft.models.layers.DenseLayers;
import dev.weft.models.quant.FrozenBase;
import dev.weft.models.quant.Int8;
import dev.weft.models.quant.Nf4;
import dev.weft.spec.LoraSpec;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * LoRA over a compressed frozen base (NF4, int8, bf16) trains as LoRA over the same weights dequantised and held in
 * fp32: per step the loss and every adapter's gradient agree within 1e-5 (relative), through a fused column base with
 * biases and a row base (whose recomputed dX carries the gradient to the adapters below); the compressed base holds
 * its fp32 weights no more.
 */
class CompressedBaseTest {
  private record Net(LoraLayers layers, Layers.Linear qk, Layers.Linear o) {
    Tensor loss(Tensor x) { return o.forward(torch.tanh(qk.forward(x))).pow(new Scalar(2)).sum(); }
  }

  private static Net net(String quantize) {
    LoraLayers l = new LoraLayers(new DenseLayers(Init.Draws.seeded(3)),
        new LoraSpec(4, 8, 0, List.of("q_proj", "k_proj", "o_proj"), false, "", quantize), 5);
    Layers.Linear qk = l.columns(List.of("m.q_proj", "m.k_proj"), 64, new long[] {48, 16}, 0.2, true);
    Layers.Linear o = l.row("m.o_proj", 64, 64, 0.2, false);
    try (NoGradGuard ng = new NoGradGuard()) { // B away from zero: the base's dX then matters to every adapter
      for (Param p : l.parameters().trainable()) {
        if (p.name().contains("lora_B")) p.tensor().copy_(Init.normalFull(9, p.name(), 0.1, p.tensor().sizes().vec().get()));
      }
      for (Param p : l.parameters().list()) if (p.name().endsWith(".bias")) p.tensor().copy_(Init.normalFull(8, p.name(), 0.1, p.tensor().size(0)));
    }
    return new Net(l, qk, o);
  }

  private static Tensor roundTrip(Tensor w, String format) {
    return switch (format) {
      case "nf4" -> Nf4.dequantize(Nf4.quantize(w, "w"));
      case "nf4-dq" -> Nf4.dequantize(Nf4.nest(Nf4.quantize(w, "w")));
      case "int8" -> Int8.dequantize(Int8.quantize(w, "w"));
      default -> w.to(ScalarType.BFloat16).to(ScalarType.Float);
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"nf4", "nf4-dq", "int8", "bf16"})
  void trainsAsTheDequantisedBaseInFp32(String format) {
    Net compressed = net(format), reference = net("none");
    FrozenBase base = compressed.layers().frozenBase();
    long fp32Bytes = base.bytes();
    base.compressAll();
    assertThat(base.bytes()).isLessThan(fp32Bytes / ("bf16".equals(format) ? 1 : 3));
    List<String> frozenWeights = new ArrayList<>();
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : reference.layers().parameters().list()) {
        if (base.holds(p.name())) {
          p.tensor().copy_(roundTrip(p.tensor(), format));
          frozenWeights.add(p.name());
          assertThat(compressed.layers().parameters().get(p.name()).tensor().numel()).as("fp32 copy released").isZero();
        }
      }
    }
    assertThat(frozenWeights).containsExactlyInAnyOrder("m.q_proj.weight", "m.k_proj.weight", "m.o_proj.weight");
    Tensor x = Init.normalFull(4, "x", 1.0, 2, 5, 64);
    for (int step = 0; step < 3; step++) {
      double a = step(compressed, x), b = step(reference, x);
      assertThat(Math.abs(a - b)).as("loss at step " + step).isLessThanOrEqualTo(1e-5 * Math.abs(b));
      for (Param p : reference.layers().parameters().trainable()) {
        Tensor g = compressed.layers().parameters().get(p.name()).tensor().grad(), ref = p.tensor().grad();
        double scale = ref.abs().max().item_double();
        assertThat(scale).as(p.name() + " has a gradient").isGreaterThan(1e-4);
        assertThat(g.sub(ref).abs().max().item_double()).as(p.name() + " at step " + step).isLessThanOrEqualTo(1e-5 * scale);
      }
      sgd(compressed);
      sgd(reference);
    }
  }

  private static double step(Net n, Tensor x) {
    for (Param p : n.layers().parameters().trainable()) if (p.tensor().grad().defined()) p.tensor().grad().zero_();
    Tensor loss = n.loss(x);
    loss.backward();
    return loss.item_double();
  }

  private static void sgd(Net n) {
    try (NoGradGuard ng = new NoGradGuard()) {
      for (Param p : n.layers().parameters().trainable()) p.tensor().sub_(p.tensor().grad().mul(new Scalar(1e-3)));
    }
  }
}
