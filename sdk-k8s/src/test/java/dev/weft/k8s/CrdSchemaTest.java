package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.crd.CustomObject;
import dev.weft.k8s.katib.KatibRenderer;
import dev.weft.k8s.katib.SearchParameter;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every custom resource we render validates against its upstream CRD's schema; unknown fields fail. */
class CrdSchemaTest {

  static void assertCustomResourcesValid(List<Manifest> manifests) {
    List<Manifest> custom = manifests.stream().filter(m -> m.body() instanceof CustomObject).toList();
    assertThat(custom).isNotEmpty();
    custom.forEach(m -> CrdSchemas.assertValid(Yaml.tree(m.body())));
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void fixedRuns(Target t) {
    CrdSchemas.dir();
    assertCustomResourcesValid(Renderer.render(TestSpecs.tiny(), t).manifests());
  }

  @Test
  void elasticPyTorchJob() {
    CrdSchemas.dir();
    assertCustomResourcesValid(Renderer.render(TestSpecs.elastic(), Target.PYTORCHJOB).manifests());
    assertCustomResourcesValid(Renderer.render(TestSpecs.elastic("elastic.rdzvBackend=etcd", "elastic.rdzvEndpoint=weft-etcd:2379"),
        Target.PYTORCHJOB).manifests());
  }

  @Test
  void katibTrialSpecIsAValidPyTorchJob() {
    CrdSchemas.dir();
    var rendered = KatibRenderer.render(TestSpecs.tiny(), new KatibRenderer.Search(
        List.of(SearchParameter.parse("train.lr=1e-4:1e-3")), "loss", "minimize", null, "random", 8, 2, 2));
    JsonNode experiment = Yaml.tree(rendered.only("Experiment").body());
    CrdSchemas.assertValid(experiment);
    ObjectNode trial = experiment.path("spec").path("trialTemplate").path("trialSpec").deepCopy();
    trial.putObject("metadata").put("name", "trial-1");
    CrdSchemas.assertValid(trial);
  }

  @Test
  void unknownAndMistypedFieldsAreCaught() {
    CrdSchemas.dir();
    ObjectNode job = Yaml.tree(Renderer.render(TestSpecs.elastic(), Target.PYTORCHJOB).only("PyTorchJob").body());
    ((ObjectNode) job.path("spec").path("elasticPolicy")).put("minReplica", 1);
    assertThat(CrdSchemas.validate(job)).isNotEmpty();
    ObjectNode js = Yaml.tree(Renderer.render(TestSpecs.tiny(), Target.JOBSET).only("JobSet").body());
    ((ObjectNode) js.path("spec").path("replicatedJobs").path(0)).put("replicas", "two");
    assertThat(CrdSchemas.validate(js)).isNotEmpty();
  }
}
