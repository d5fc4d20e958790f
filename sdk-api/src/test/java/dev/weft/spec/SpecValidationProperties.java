package dev.weft.spec;

import dev.weft.plan.SpecCheck;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class SpecValidationProperties {
  private static TrainingSpec spec(String... sets) {
    var tree = SpecIO.defaultsTree();
    for (String s : sets) SpecOverrides.apply(tree, s);
    return SpecIO.bind(tree);
  }

  @Property
  void anySpecRoundTripsThroughYamlAndJson(@ForAll @IntRange(min = 1, max = 64) int dp, @ForAll @IntRange(min = 1, max = 8) int micro,
                                           @ForAll @IntRange(min = 1, max = 10_000) int steps, @ForAll boolean seqPar) {
    TrainingSpec s = spec("parallel.dp=" + dp, "parallel.microBatches=" + micro, "train.steps=" + steps,
        "parallel.sequenceParallel=" + seqPar, "train.globalBatch=" + dp * micro * 3);
    assertThat(SpecIO.parse(SpecIO.toYaml(s))).isEqualTo(s);
    assertThat(SpecIO.fromJson(SpecIO.toJson(s))).isEqualTo(s);
  }

  @Property
  void batchMustDivideIntoDataParallelMicroBatches(@ForAll @IntRange(min = 1, max = 16) int dp,
                                                   @ForAll @IntRange(min = 1, max = 8) int micro,
                                                   @ForAll @IntRange(min = 1, max = 512) int batch) {
    TrainingSpec s = spec("parallel.dp=" + dp, "parallel.microBatches=" + micro, "train.globalBatch=" + batch);
    if (batch % (dp * micro) == 0) {
      assertThat(SpecCheck.validate(s, dp)).isSameAs(s);
    } else {
      assertThatThrownBy(() -> SpecCheck.validate(s, dp)).isInstanceOf(SpecException.class)
          .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo("train.globalBatch"));
    }
  }

  @Property
  void processCountMustMatchTheMesh(@ForAll @IntRange(min = 1, max = 16) int dp, @ForAll @IntRange(min = 1, max = 16) int nproc) {
    TrainingSpec s = spec("parallel.dp=" + dp, "train.globalBatch=" + 16 * dp);
    if (dp == nproc) {
      SpecCheck.validate(s, nproc);
    } else {
      assertThatThrownBy(() -> SpecCheck.validate(s, nproc)).isInstanceOf(SpecException.class)
          .hasMessageContaining("parallel.dp").hasMessageContaining("--nproc")
          .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo("parallel.dp"));
    }
  }

  @Property
  void nonPositiveSizesAreRefusedByName(@ForAll @IntRange(min = -5, max = 0) int v) {
    for (String f : List.of("parallel.dp", "parallel.microBatches", "train.steps", "data.seqLen")) {
      assertThatThrownBy(() -> SpecCheck.validate(spec(f + "=" + v))).isInstanceOf(SpecException.class)
          .satisfies(e -> assertThat(((SpecException) e).field()).isEqualTo(f));
    }
  }

  @Property(tries = 5)
  void elasticSpecsValidateAndABadRangeIsRefusedByName(@ForAll @IntRange(min = 1, max = 4) int nodes) {
    assertThat(SpecCheck.validate(spec("elastic.enabled=true", "elastic.maxNodes=" + nodes)).elastic().maxNodes()).isEqualTo(nodes);
    assertThatThrownBy(() -> SpecCheck.validate(spec("elastic.enabled=true", "elastic.minNodes=" + (nodes + 1),
        "elastic.maxNodes=" + nodes))).isInstanceOf(SpecException.class).hasMessageContaining("elastic.maxNodes");
  }

  @Property(tries = 10)
  void unknownScheduleListsTheValidOnes(@ForAll("names") String name) {
    assertThatThrownBy(() -> SpecCheck.validate(spec("parallel.schedule=" + name)))
        .hasMessageContaining("gpipe, 1f1b, interleaved-1f1b");
  }

  @net.jqwik.api.Provide
  net.jqwik.api.Arbitrary<String> names() {
    return net.jqwik.api.Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(8).filter(s -> SpecChoice.find(PipelineSchedule.class, s).isEmpty());
  }

  @Property(tries = 30)
  void gptHeadsMustDivideHidden(@ForAll @IntRange(min = 1, max = 12) int heads) {
    TrainingSpec s = spec("model.config.heads=" + heads);
    if (128 % heads == 0) SpecCheck.validate(s);
    else assertThatThrownBy(() -> SpecCheck.validate(s)).hasMessageContaining("model.config.heads");
  }
}
