package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.spec.K8sSpecLoader;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * Issue 45: a GRPO spec (dp × tp, a built-in reward and a reward class) renders for every target, and the pods' spec
 * reads back as the same GRPO run; a reward that lives only in the submitting JVM is refused in one line.
 */
class GrpoRenderTest {
  @ParameterizedTest
  @EnumSource(Target.class)
  void everyTargetRendersAGrpoSpecThatReadsBackTheSame(Target t) {
    Rendered r = Renderer.render(K8sSpecLoader.load(TestSpecs.path("grpo.yaml"), List.of()), t);
    assertThat(RenderTest.podTemplates(r)).isNotEmpty();
    TrainingSpec back = SpecIO.parse(Yaml.tree(r.only("ConfigMap").body()).path("data").path("spec.yaml").asText());
    assertThat(back.train().grpoObjective()).isTrue();
    assertThat(back.train().grpo().groupSize()).isEqualTo(4);
    assertThat(back.train().grpo().stop()).containsExactly(";");
    assertThat(back.train().grpo().rewards()).extracting(rw -> rw.name()).containsExactly("arithmetic", "com.acme.CompilesReward");
    assertThat(back.train().grpo().rewards().get(1).weight()).isEqualTo(0.5);
    assertThat(back.parallel().tp()).isEqualTo(2);
    assertThat(back.data().source()).isEqualTo("/data/prompts.jsonl");
  }

  @Test
  void aRewardObjectOfThisJvmIsRefusedForTheCluster() {
    assertThatThrownBy(() -> K8sSpecLoader.load(TestSpecs.path("grpo.yaml"), List.of("train.grpo.rewards=[{name: 'code:1'}]")))
        .hasMessageContaining("train.grpo.rewards[0]").hasMessageContaining("class name");
  }
}
