package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.weft.Trainer;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.Parameters.Param;
import dev.weft.models.layers.DenseLayers;
import dev.weft.models.lora.LoraLayers;
import dev.weft.spec.TrainingSpec;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@code weft plan} for a compressed LoRA base counts the projections and the 16-bit embedding and head at the bytes the
 * built base really holds (plus one layer made in fp32); the chunked loss holds one chunk's logits; the emergency checkpoint of a LoRA run is its
 * adapters and their optimizer state.
 */
class PlanCompressedBaseTest {
  private static Trainer llama() {
    return Trainer.model("llama").set("model.config.hidden_size", 128).set("model.config.intermediate_size", 344)
        .set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 8)
        .set("model.config.num_key_value_heads", 4).set("model.config.vocab_size", 1000).seqLen(32).globalBatch(2)
        .warmup(1).lr(1e-3).seed(3).lora(16, 32);
  }

  @ParameterizedTest
  @ValueSource(strings = {"nf4", "nf4-dq", "int8", "bf16"})
  void theFrozenBaseIsCountedAtTheBytesItHolds(String format) {
    TrainingSpec none = llama().toSpec(), q = llama().set("train.lora.quantize", format).toSpec();
    double projections = 0, tables = 0, held;
    try (PointerScope scope = new PointerScope()) {
      LoraLayers layers = new LoraLayers(new DenseLayers(1), q.train().lora(), 1, true, q.train().lossChunk());
      ModelFactories.lookup(q.model().factory()).create(q, new ModelContext(1, layers, q.parallel(), 0));
      for (Param p : layers.parameters().list()) {
        if (!layers.frozenBase().holds(p.name())) continue;
        if (p.name().contains("embed_tokens") || p.name().startsWith("lm_head")) tables += p.numel();
        else projections += p.numel();
      }
      layers.frozenBase().compressAll();
      held = layers.frozenBase().bytes();
    }
    assertThat(tables).as("the embedding and the untied head are held by the base").isEqualTo(2 * 1000 * 128);
    double plain = MemoryPlan.ranks(none).orElseThrow().get(0).parameters();
    double planned = MemoryPlan.ranks(q).orElseThrow().get(0).parameters();
    double expected = plain - 4 * (projections + tables) + held + 4 * (2 * 128 * 344); // gate and up fused, made in fp32: the largest
    assertThat(planned).isCloseTo(expected, within(0.01 * expected));
    assertThat(planned).isLessThanOrEqualTo(plain);
  }

  @Test
  void theChunkedLossHoldsOneChunksLogits() {
    RankPlan plain = MemoryPlan.ranks(llama().set("train.lossChunk", 0).toSpec()).orElseThrow().get(0);
    RankPlan chunked = MemoryPlan.ranks(llama().set("train.lossChunk", 16).toSpec()).orElseThrow().get(0);
    // 64 tokens of a 1000-word vocabulary: the logits, log-softmax's output and their two gradients, four fp32
    // [64, 1000] tensors; or one [16, 1000] chunk (its softmax and gradient made in place) and dH [64, 128]
    assertThat(plain.activations() - chunked.activations()).isEqualTo(4 * 4 * 64 * 1000 - (4 * 16 * 1000 + 4 * 64 * 128.0));
  }

  @Test
  void aLoraRunsEmergencyCheckpointIsItsAdapters() {
    TrainingSpec s = llama().toSpec();
    RankPlan r = MemoryPlan.ranks(s).orElseThrow().get(0);
    SaveTimePlan save = SaveTimePlan.of(s, java.util.List.of(r), new dev.weft.preempt.GracePeriod(30));
    assertThat(save.checkpointBytes()).isEqualTo(4 * r.trainableCount() + r.optimizerState());
    assertThat(r.trainableCount()).isLessThan(0.5 * r.parameterCount());
  }
}
