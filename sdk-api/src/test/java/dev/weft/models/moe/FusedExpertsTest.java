package dev.weft.models.moe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.models.Init;
import dev.weft.util.Tensors;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;

/**
 * transformers 5's fused experts ↔ per-expert tensors: fusing stacks [E, 2I, H] (gate rows, then up) and [E, H, I]
 * in the model's order, renames Mixtral's block to mlp, and reading each expert back from the fused tensors gives
 * the same values; the fused shapes the tensor check expects are the fused tensors' shapes.
 */
class FusedExpertsTest {
  @Test
  void fuseThenReadGivesTheExpertsBack() {
    Map<String, Tensor> w = new LinkedHashMap<>();
    Map<String, long[]> shapes = new LinkedHashMap<>();
    String l = "model.layers.0.block_sparse_moe.";
    put(w, shapes, l + "gate.weight", 3, 4);
    for (int e = 0; e < 3; e++) {
      put(w, shapes, l + "experts." + e + ".w1.weight", 5, 4);
      put(w, shapes, l + "experts." + e + ".w3.weight", 5, 4);
      put(w, shapes, l + "experts." + e + ".w2.weight", 4, 5);
    }
    put(w, shapes, "lm_head.weight", 7, 4);
    Map<String, Tensor> fused = FusedExperts.fuse(w, MoeNames.MIXTRAL);
    assertThat(fused.keySet()).containsExactly("model.layers.0.mlp.gate.weight", "model.layers.0.mlp.experts.gate_up_proj",
        "model.layers.0.mlp.experts.down_proj", "lm_head.weight");
    assertThat(fused.get("model.layers.0.mlp.experts.gate_up_proj").sizes().vec().get()).containsExactly(3, 10, 4);
    Map<String, long[]> want = FusedExperts.shapes(shapes, MoeNames.MIXTRAL);
    assertThat(want.keySet()).containsExactlyInAnyOrderElementsOf(fused.keySet());
    fused.forEach((n, t) -> assertThat(want.get(n)).as(n).containsExactly(t.sizes().vec().get()));
    assertThat(FusedExperts.in(fused.keySet())).isTrue();
    assertThat(FusedExperts.in(w.keySet())).isFalse();
    for (String name : w.keySet()) {
      Tensor back = FusedExperts.read(name, MoeNames.MIXTRAL, fused::get);
      assertThat(Tensors.toDoubles(back)).as(name).containsExactly(Tensors.toDoubles(w.get(name)));
    }
  }

  private static void put(Map<String, Tensor> w, Map<String, long[]> shapes, String name, long... shape) {
    w.put(name, Init.normalFull(1, name, 1.0, shape));
    shapes.put(name, shape);
  }
}
