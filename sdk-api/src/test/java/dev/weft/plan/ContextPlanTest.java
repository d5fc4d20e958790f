package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.spec.TrainingSpec;
import org.junit.jupiter.api.Test;

/**
 * The plan of context parallelism: a llama-tiny-sized decoder at sequence 2048 keeps at most 0.6× the activations
 * per rank at cp=2 that it keeps at cp=1 with the fused-kernel methods (half the tokens; all-gather attention also
 * keeps the other rank's K/V, so a little more than all-to-all), the same model state, and sends K/V plus the cp
 * gradient sum; ring attention keeps its blocks' explicit scores (5/16 of s² per head), more than cp=1's fused
 * kernel keeps. CpActivationMemoryTest holds the plan to the measured memory.
 */
class ContextPlanTest {
  private static TrainingSpec spec(int cp) { return spec(cp, "allgather"); }

  private static TrainingSpec spec(int cp, String method) {
    return Trainer.model("llama").set("parallel.cpMethod", method).set("model.config.hidden_size", 256).set("model.config.intermediate_size", 688)
        .set("model.config.num_hidden_layers", 4).set("model.config.num_attention_heads", 8)
        .set("model.config.num_key_value_heads", 8).seqLen(2048).globalBatch(1).microBatches(1).contextParallel(cp).toSpec();
  }

  @Test
  void cp2HoldsAtMostSixTenthsOfTheActivations() {
    RankPlan one = MemoryPlan.ranks(spec(1)).orElseThrow().get(0);
    var two = MemoryPlan.ranks(spec(2)).orElseThrow();
    assertThat(two).hasSize(2);
    for (RankPlan r : two) {
      assertThat(r.activations()).isLessThanOrEqualTo(0.6 * one.activations());
      assertThat(r.parameters()).isEqualTo(one.parameters());
      assertThat(r.cp()).isEqualTo(2);
      assertThat(r.cpBytes()).isGreaterThan(0);
    }
    assertThat(one.cpBytes()).isZero();
    RankPlan heads = MemoryPlan.ranks(spec(2, "alltoall")).orElseThrow().get(0);
    assertThat(heads.activations()).isLessThanOrEqualTo(0.6 * one.activations()).isLessThan(two.get(0).activations());
    RankPlan ring = MemoryPlan.ranks(spec(2, "ring")).orElseThrow().get(0);
    assertThat(ring.activations()).isGreaterThan(one.activations()); // explicit block scores against the fused kernel's none
    assertThat(ring.cpBytes()).isEqualTo(two.get(0).cpBytes());
    assertThat(MemoryPlan.scores(2048, 2)).isEqualTo(5.0 / 16 * 2048 * 2048);
  }
}
