package dev.weft.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.Parameters.Param;
import dev.weft.models.layers.DenseLayers;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.api.Test;

/** The planner's parameter counts against the parameters a model really builds, for each planned factory. */
class FamilyPlanTest {
  private static TrainingSpec spec(String file, String... sets) { return SpecIO.read(Path.of("../samples/configs/" + file), List.of(sets)); }

  private static long built(TrainingSpec s) {
    try (PointerScope scope = new PointerScope()) {
      DenseLayers layers = new DenseLayers(1);
      ModelFactories.lookup(s.model().factory()).create(s, new ModelContext(1, layers, s.parallel(), 0));
      return layers.parameters().list().stream().mapToLong(Param::numel).sum();
    }
  }

  @Test
  void planCountsWhatTheModelBuilds() {
    for (TrainingSpec s : List.of(spec("gpt-tiny.yaml", "parallel.dp=1"), spec("llama-tiny.yaml", "parallel.dp=1", "parallel.tp=1"),
        spec("llama-tiny.yaml", "parallel.dp=1", "parallel.tp=1", "model.config.tie_word_embeddings=true"),
        spec("llama-tiny.yaml", "parallel.dp=1", "parallel.tp=1", "model.factory=qwen2"),
        spec("llama-tiny.yaml", "parallel.dp=1", "parallel.tp=1", "model.factory=qwen3"),
        spec("llama-tiny.yaml", "parallel.dp=1", "parallel.tp=1", "model.factory=mistral"))) {
      RankPlan r = MemoryPlan.ranks(s).orElseThrow().get(0);
      assertThat(r.parameterCount()).as(s.model().factory() + " " + s.model().config()).isEqualTo((double) built(s));
    }
  }

  @Test
  void tiedHeadIsHeldAgainOnlyByALastStageThatIsNotTheFirst() {
    TrainingSpec whole = spec("llama-tiny.yaml", "parallel.dp=1", "parallel.tp=1", "model.config.tie_word_embeddings=true");
    TrainingSpec untied = spec("llama-tiny.yaml", "parallel.dp=1", "parallel.tp=1");
    double vh = 256.0 * 64;
    assertThat(MemoryPlan.ranks(untied).orElseThrow().get(0).parameterCount()
        - MemoryPlan.ranks(whole).orElseThrow().get(0).parameterCount()).isEqualTo(vh);
  }
}
