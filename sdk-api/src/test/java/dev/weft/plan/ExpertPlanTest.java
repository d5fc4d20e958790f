package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import org.junit.jupiter.api.Test;

/**
 * weft plan's MoE line: the routed experts' parameters, a rank's share at ep, and the all-to-all bytes per rank and
 * step, worked by hand for a tiny Mixtral (2 MoE layers of 4 experts, h=32, experts of 64, top-2, 8 × 16 tokens, fp32).
 */
class ExpertPlanTest {
  private static Trainer mixtral() {
    return Trainer.model("mixtral").set("model.config.hidden_size", 32).set("model.config.intermediate_size", 64)
        .set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 4).set("model.config.num_key_value_heads", 2)
        .set("model.config.num_local_experts", 4).set("model.config.num_experts_per_tok", 2).seqLen(16).globalBatch(8)
        .dataParallel(2).microBatches(1);
  }

  @Test
  void theLineCountsTheExpertsAndTheAllToAll() {
    // experts: 2 layers × 4 × 3·32·64 = 49152 parameters; ep2: 2 per rank, 24576 (× 16 B = 384 KiB of state)
    // all-to-all: 2 layers × 4 passes × 1/2 leaving × (4 samples × 16 tokens) × k 2 × 32 × 4 B = 64 KiB
    String ep2 = ExpertPlan.line(mixtral().expertParallel(2).toSpec()).orElseThrow();
    assertThat(ep2).contains("4 per MoE layer × 2 layers, top-2, 49.2 k parameters").contains("a rank holds 2 per layer (24.6 k")
        .contains("384.0 KiB").contains("sends 64.0 KiB per step");
    assertThat(ExpertPlan.line(mixtral().toSpec()).orElseThrow()).contains("a rank holds 4 per layer").contains("sends 0 B");
    assertThat(ExpertPlan.line(Trainer.model("llama").size("tiny").toSpec())).isEmpty();
    assertThatThrownBy(() -> Trainer.model("llama").size("tiny").dataParallel(2).expertParallel(2).toSpec())
        .isInstanceOf(dev.weft.spec.SpecException.class).hasMessageContaining("parallel.ep").hasMessageContaining("has none");
    // the guide's example plans
    assertThat(ExpertPlan.line(Trainer.model("mixtral").set("model.config.num_local_experts", 8)
        .dataParallel(4).expertParallel(2).zero(1).steps(100).toSpec())).get().asString().contains("a rank holds 4 per layer");
  }

  @Test
  void theMemoryPlanHoldsAnEpRanksShareOfTheExperts() {
    RankPlan ep1 = MemoryPlan.ranks(mixtral().zero(1).toSpec()).orElseThrow().get(0);
    RankPlan ep2 = MemoryPlan.ranks(mixtral().zero(1).expertParallel(2).toSpec()).orElseThrow().get(0);
    assertThat(ep1.parameterCount() - ep2.parameterCount()).isEqualTo(24576); // half of the 49152 expert parameters
    // ZeRO-1: an expert's moments are sharded over the dp/ep ranks holding it, so a rank keeps as much state either way
    assertThat(ep2.optimizerState()).isEqualTo(ep1.optimizerState());
    assertThat(ep2.gradients()).isEqualTo(ep1.gradients() - 4 * 24576);
    // at ep = dp no expert is reduced over dp: the 49152 expert parameters' all-reduce (2 × ½ × 4 B) and gather (½ × 4 B) are gone
    assertThat(ep1.dpBytes() - ep2.dpBytes()).isEqualTo(0.5 * 49152 * 4 * 3);
    // pp2: each stage holds its own layer's experts, half of them at ep2
    java.util.List<RankPlan> pp1 = MemoryPlan.ranks(mixtral().zero(1).pipeline(2).toSpec()).orElseThrow();
    java.util.List<RankPlan> pp2 = MemoryPlan.ranks(mixtral().zero(1).pipeline(2).expertParallel(2).toSpec()).orElseThrow();
    for (int s = 0; s < 2; s++) assertThat(pp1.get(s).parameterCount() - pp2.get(s).parameterCount()).isEqualTo(12288);
  }
}
