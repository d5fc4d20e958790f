package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.katib.KatibRenderer;
import dev.weft.k8s.katib.OptimizationJobRenderer;
import dev.weft.k8s.katib.SearchParameter;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.workflow.WorkflowRenderer;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Argo pipeline and Trainer's OptimizationJob rendered from one spec: their fields and the upstream schemas. */
class PipelineRenderTest {
  static final KatibRenderer.Search SEARCH = new KatibRenderer.Search(List.of(SearchParameter.parse("train.lr=1e-4:1e-3"),
      SearchParameter.parse("train.warmup=5:50"), SearchParameter.parse("parallel.schedule=gpipe,1f1b")),
      "loss", "minimize", null, "random", 8, 2, 2);

  static JsonNode template(JsonNode wf, String name) {
    for (JsonNode t : wf.path("spec").path("templates")) if (t.path("name").asText().equals(name)) return t;
    throw new AssertionError("no template " + name);
  }

  static List<String> args(JsonNode template) {
    List<String> out = new ArrayList<>();
    template.path("container").path("args").forEach(a -> out.add(a.asText()));
    return out;
  }

  @Test
  void theWorkflowRunsPrepareTrainEvalExportOnTheClaim() {
    Rendered r = WorkflowRenderer.render(TestSpecs.tiny(), "models/gpt-tiny");
    assertThat(r.manifests()).extracting(Manifest::kind).containsExactly("ConfigMap", "NetworkPolicy", "WorkflowTemplate", "Workflow");
    JsonNode wf = Yaml.tree(r.only("Workflow").body());
    assertThat(Yaml.tree(r.only("WorkflowTemplate").body()).path("spec")).isEqualTo(wf.path("spec"));
    assertThat(wf.path("spec").path("entrypoint").asText()).isEqualTo("pipeline");
    List<String> order = new ArrayList<>();
    for (JsonNode t : template(wf, "pipeline").path("dag").path("tasks")) {
      order.add(t.path("name").asText() + "<" + t.path("dependencies").path(0).asText(""));
    }
    assertThat(order).containsExactly("prepare<", "train<prepare", "eval<train", "export<eval");
    String run = "/checkpoints/runs/{{workflow.name}}";
    assertThat(args(template(wf, "prepare"))).startsWith("data", "prepare").contains("--out", run + "/tokens");
    assertThat(args(template(wf, "eval"))).startsWith("eval", run + "/checkpoints").contains("--data", run + "/tokens");
    assertThat(args(template(wf, "export"))).startsWith("checkpoint", "export", run + "/checkpoints").contains("--format", "hf");
    JsonNode artifact = template(wf, "export").path("outputs").path("artifacts").path(0);
    assertThat(artifact.path("s3").path("key").asText()).isEqualTo("models/gpt-tiny");
    assertThat(artifact.path("path").asText()).isEqualTo(run + "/export");
    for (String step : List.of("prepare", "eval", "export")) {
      JsonNode c = template(wf, step).path("container");
      assertThat(c.path("command").path(0).asText()).isEqualTo("weft");
      assertThat(c.path("image").asText()).isEqualTo("ghcr.io/acme/weft:0.1.0");
      assertThat(c.path("securityContext").path("readOnlyRootFilesystem").asBoolean()).isTrue();
    }
    JsonNode train = template(wf, "train").path("resource");
    assertThat(train.path("action").asText()).isEqualTo("create");
    assertThat(train.path("successCondition").asText()).isEqualTo("status.replicaStatuses.Master.succeeded > 0");
    assertThat(train.path("failureCondition").asText()).isEqualTo("status.replicaStatuses.Master.failed > 0");
    JsonNode job = Yaml.read(train.path("manifest").asText());
    assertThat(job.path("kind").asText()).isEqualTo("PyTorchJob");
    assertThat(job.path("metadata").path("generateName").asText()).isEqualTo("gpt-tiny-");
    assertThat(job.toString()).contains("data.source=" + run + "/tokens", "checkpoint.dir=" + run + "/checkpoints");
    assertThat(Yaml.tree(WorkflowRenderer.render(TestSpecs.tiny(), null).only("Workflow").body()).toString()).doesNotContain("artifacts");
  }

  @Test
  void theWorkflowAndItsTrainJobMatchTheUpstreamSchemas() {
    CrdSchemas.dir();
    Rendered r = WorkflowRenderer.render(TestSpecs.tiny(), "models/gpt-tiny");
    // the WorkflowTemplate holds the same spec (asserted above); its 2.7 MB schema is left to the API server test
    JsonNode wf = Yaml.tree(r.only("Workflow").body());
    CrdSchemas.assertValid(wf);
    com.fasterxml.jackson.databind.node.ObjectNode job = (com.fasterxml.jackson.databind.node.ObjectNode)
        Yaml.read(template(wf, "train").path("resource").path("manifest").asText());
    ((com.fasterxml.jackson.databind.node.ObjectNode) job.get("metadata")).put("name", "gpt-tiny-abcde");
    CrdSchemas.assertValid(job);
  }

  @Test
  void theOptimizationJobSearchesTheSameSpaceOnTheSpecsRuntime() {
    CrdSchemas.dir();
    Rendered r = OptimizationJobRenderer.render(TestSpecs.tiny(), SEARCH);
    assertThat(r.manifests()).extracting(Manifest::kind).containsExactly("TrainingRuntime", "OptimizationJob");
    r.manifests().forEach(m -> CrdSchemas.assertValid(Yaml.tree(m.body())));
    JsonNode spec = Yaml.tree(r.only("OptimizationJob").body()).path("spec");
    assertThat(spec.path("numTrials").asInt()).isEqualTo(8);
    assertThat(spec.path("objectives").toString()).isEqualTo("[{\"metric\":\"loss\",\"direction\":\"Minimize\"}]");
    assertThat(spec.path("parameters").path(0).toString())
        .isEqualTo("{\"name\":\"trainLr\",\"searchSpace\":{\"uniform\":{\"min\":\"1e-4\",\"max\":\"1e-3\",\"type\":\"Float\"}}}");
    assertThat(spec.path("parameters").path(1).path("searchSpace").path("uniform").path("type").asText()).isEqualTo("Int");
    assertThat(spec.path("parameters").path(2).path("searchSpace").path("categorical").path("choices").toString())
        .isEqualTo("[\"gpipe\",\"1f1b\"]");
    JsonNode trainer = spec.path("trainJobTemplate").path("spec").path("trainer");
    assertThat(trainer.path("args").toString()).contains("\"train.lr=$(KUBEFLOW_TRAINER_OPT_TRAINLR)\"",
        "\"parallel.schedule=$(KUBEFLOW_TRAINER_OPT_PARALLELSCHEDULE)\"");
    assertThat(spec.path("trainJobTemplate").path("spec").path("runtimeRef").path("name").asText()).isEqualTo("gpt-tiny");
  }

  @Test
  void mistakesNameTheField() {
    assertThatThrownBy(() -> WorkflowRenderer.render(TestSpecs.tiny("deployment.checkpointStorage.pvc=",
        "deployment.checkpointStorage.uri=s3://b/p", "deployment.checkpointStorage.secret=s"), null))
        .isInstanceOf(SpecException.class).hasMessageStartingWith("deployment.checkpointStorage");
    assertThatThrownBy(() -> OptimizationJobRenderer.render(TestSpecs.tiny(), new KatibRenderer.Search(SEARCH.parameters(),
        "loss", "minimize", null, "bayesianoptimization", 8, 2, 2))).isInstanceOf(SpecException.class).hasMessageStartingWith("--algorithm");
    assertThatThrownBy(() -> OptimizationJobRenderer.render(TestSpecs.tiny(), new KatibRenderer.Search(SEARCH.parameters(),
        "loss", "minimize", null, "grid", 8, 2, 2))).isInstanceOf(SpecException.class).hasMessageContaining("train.lr");
  }
}
