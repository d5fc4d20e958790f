package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import dev.weft.models.layers.DenseLayers;
import dev.weft.models.lora.LoraLayers;
import dev.weft.spec.TrainingSpec;
import java.io.PrintStream;
import java.nio.file.Path;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@code weft plan} under LoRA: only the adapters train (gradients, optimizer state, dp traffic), the frozen base is
 * held once and whole; the counts are what a LoRA model builds, and a real LoRA run's peak RSS is the plan's.
 */
class PlanLoraTest {
  @TempDir Path dir;

  /** A Llama whose weights (38 M parameters, 154 MB in fp32) outweigh the runtime, so the plan's model part shows. */
  private static Trainer llama() { return llama(512, 32000); }

  private static Trainer llama(int hidden, int vocab) {
    return Trainer.model("llama").set("model.config.hidden_size", hidden).set("model.config.intermediate_size", hidden * 43 / 16)
        .set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 8)
        .set("model.config.num_key_value_heads", 4).set("model.config.vocab_size", vocab).seqLen(32).globalBatch(2)
        .warmup(1).lr(1e-3).seed(3).lora(16, 32);
  }

  private static Parameters built(TrainingSpec s) {
    try (PointerScope scope = new PointerScope()) {
      LoraLayers layers = new LoraLayers(new DenseLayers(1), s.train().lora(), 1);
      ModelFactories.lookup(s.model().factory()).create(s, new ModelContext(1, layers, s.parallel(), 0));
      return layers.parameters();
    }
  }

  private static double numel(java.util.List<Param> ps) { return ps.stream().mapToLong(Param::numel).sum(); }

  @Test
  void adaptersAloneTrainAndTheFrozenBaseIsHeldOnceWhole() {
    TrainingSpec s = llama(128, 1000).toSpec();
    Parameters built = built(s);
    RankPlan r = MemoryPlan.ranks(s).orElseThrow().get(0), full = MemoryPlan.fullFineTune(s).orElseThrow().get(0);
    double adapters = numel(built.trainable()), all = numel(built.list());
    assertThat(r.trainableCount()).isEqualTo(adapters);
    assertThat(r.parameterCount()).isEqualTo(all);
    assertThat(full.parameterCount()).isEqualTo(full.trainableCount()).isEqualTo(all - adapters);
    assertThat(r.parameters()).isEqualTo(4 * all);
    assertThat(r.gradients()).isEqualTo(4 * adapters);
    assertThat(r.optimizerState()).isEqualTo(8 * adapters);
    assertThat((r.gradients() + r.optimizerState()) / (full.gradients() + full.optimizerState()))
        .isCloseTo(adapters / (all - adapters), org.assertj.core.data.Offset.offset(1e-12));

    // ZeRO-3 over dp=2 shards the adapters only; the base stays whole on both ranks; dp traffic is the adapters'
    TrainingSpec z3 = llama(128, 1000).dataParallel(2).zero(3).toSpec();
    RankPlan z = MemoryPlan.ranks(z3).orElseThrow().get(1), zFull = MemoryPlan.fullFineTune(z3).orElseThrow().get(1);
    assertThat(z.parameters()).isEqualTo(4 * (all - adapters) + 4 * adapters / 2);
    assertThat(z.optimizerState()).isEqualTo(8 * adapters / 2);
    assertThat(z.dpBytes() / zFull.dpBytes()).isCloseTo(adapters / (all - adapters), org.assertj.core.data.Offset.offset(1e-12));
    assertThat(LoraPlan.line(z3, MemoryPlan.ranks(z3).orElseThrow(), MemoryPlan.fullFineTune(z3).orElseThrow()).orElseThrow())
        .contains("LoRA rank 16").contains("train on rank").contains("for a full fine-tune");
  }

  /** A model without the targets' projections (gpt): the line says the table is a full fine-tune, not "100 % of it trains". */
  @Test
  void targetsTheModelLacksAreSaidNotCountedAsAdapters() {
    TrainingSpec gpt = Trainer.model("gpt").size("tiny").lora(8, 16).toSpec();
    assertThat(LoraPlan.line(gpt, MemoryPlan.ranks(gpt).orElseThrow(), MemoryPlan.fullFineTune(gpt).orElseThrow()).orElseThrow())
        .contains("none of q_proj").contains("model.factory=gpt").contains("train.lora.targets").doesNotContain("100.0 %");
  }

  @Test
  @Tag("slow")
  void aLoraRunPeaksWhereThePlanSays() throws Exception {
    Trainer t = llama().steps(1).warmup(0).runDir(dir.resolve("run"));
    TrainingSpec s = t.toSpec();
    var outcome = t.launch(new PrintStream(java.io.OutputStream.nullOutputStream()));
    assertThat(outcome.ok()).as(outcome.reason()).isTrue();
    JsonNode mem = MetricsJson.MAPPER.readTree(dir.resolve("run/summary.json").toFile()).get("memory");
    double measured = mem.get("peak_rss").asDouble();
    double plan = MemoryPlan.ranks(s).orElseThrow().get(0).total(), full = MemoryPlan.fullFineTune(s).orElseThrow().get(0).total();
    LoggerFactory.getLogger(PlanLoraTest.class).info("LoRA peak RSS {} MiB, plan {} MiB, full fine-tune plan {} MiB",
        measured / (1 << 20), plan / (1 << 20), full / (1 << 20));
    assertThat(measured / plan).isBetween(0.85, 1.15);
    assertThat(measured).isLessThan(0.85 * full); // and the plan's saving is real: not the full fine-tune's footprint
  }
}
