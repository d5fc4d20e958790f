package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.crd.TrainingRuntime;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.trainer.RuntimeInputs;
import dev.weft.k8s.trainer.RuntimePresets;
import dev.weft.k8s.trainer.RuntimeRenderer;
import dev.weft.k8s.trainer.RuntimeTrainJob;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Weft's Trainer v2 runtimes (kubeflow/trainer v2.3 API): the fields Trainer's plugins look for, and the upstream schemas. */
class RuntimeRenderTest {
  static JsonNode job(JsonNode runtime, String name) {
    for (JsonNode j : runtime.path("spec").path("template").path("spec").path("replicatedJobs")) {
      if (j.path("name").asText().equals(name)) return j;
    }
    throw new AssertionError("no replicated job " + name);
  }

  static JsonNode container(JsonNode job) { return job.path("template").path("spec").path("template").path("spec").path("containers").path(0); }

  static String env(JsonNode container, String name) {
    for (JsonNode e : container.path("env")) if (e.path("name").asText().equals(name)) return e.path("value").asText();
    return null;
  }

  static List<String> names(JsonNode array, String field) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.path(field).asText()));
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"weft-llama3.2-1b", "weft-llama3.2-3b", "weft-qwen2.5-1.5b"})
  void presetsAreMultiNodeLoraRuntimesWithInitializers(String preset) {
    Rendered r = RuntimePresets.render(preset, List.of());
    assertThat(r.manifests()).extracting(m -> m.kind()).containsExactly("ClusterTrainingRuntime", "TrainingRuntime");
    JsonNode cluster = Yaml.tree(r.only("ClusterTrainingRuntime").body());
    assertThat(cluster.path("metadata").path("name").asText()).isEqualTo(preset);
    assertThat(cluster.path("metadata").has("namespace")).isFalse();
    assertThat(cluster.path("metadata").path("labels").path(RuntimeRenderer.FRAMEWORK_LABEL).asText()).isEqualTo("weft");
    assertThat(cluster.path("spec").path("mlPolicy").path("numNodes").asInt()).isEqualTo(2);
    assertThat(cluster.path("spec").path("mlPolicy").path("torch").isObject()).as("torch policy: PET_* injected").isTrue();
    JsonNode jobs = cluster.path("spec").path("template").path("spec").path("replicatedJobs");
    assertThat(names(jobs, "name")).containsExactly("model-initializer", "dataset-initializer", "node");
    for (String name : List.of("model-initializer", "dataset-initializer")) {
      JsonNode j = job(cluster, name);
      assertThat(j.path("template").path("metadata").path("labels").path(TrainingRuntime.ANCESTOR_LABEL).asText()).isEqualTo(name);
      assertThat(container(j).path("name").asText()).as("Trainer sets STORAGE_URI in the container named like the job").isEqualTo(name);
      assertThat(container(j).path("image").asText()).isEqualTo(container(job(cluster, "node")).path("image").asText());
    }
    JsonNode node = job(cluster, "node");
    assertThat(node.path("template").path("metadata").path("labels").path(TrainingRuntime.ANCESTOR_LABEL).asText()).isEqualTo("trainer");
    assertThat(names(node.path("dependsOn"), "name")).containsExactly("model-initializer", "dataset-initializer");
    assertThat(names(node.path("dependsOn"), "status")).containsOnly("Complete");
    assertThat(names(job(cluster, "dataset-initializer").path("dependsOn"), "name")).as("tokenized with the model's tokenizer")
        .containsExactly("model-initializer");
    JsonNode c = container(node);
    assertThat(c.path("name").asText()).isEqualTo("node");
    assertThat(c.path("command").path(0).asText()).isEqualTo("/bin/sh");
    assertThat(c.path("command").path(2).asText()).contains("exec weft worker", "parallel.dp=", "PET_NNODES", "PET_NPROC_PER_NODE");
    JsonNode spec = Yaml.read(env(c, "WEFT_SPEC"));
    assertThat(c.path("command").path(2).asText()).contains("--set model.pretrained=" + RuntimeRenderer.MODEL_DIR);
    assertThat(spec.path("train").path("lora").path("rank").asInt()).isEqualTo(16);
    assertThat(c.path("command").path(2).asText()).contains("--set data.source=" + RuntimeRenderer.TOKENS_DIR);
    assertThat(names(c.path("volumeMounts"), "mountPath")).contains("/workspace").doesNotContain("/etc/weft");
    JsonNode pod = node.path("template").path("spec").path("template").path("spec");
    assertThat(names(pod.path("volumes"), "name")).as("the claim comes from the JobSet, the spec from WEFT_SPEC")
        .doesNotContain("workspace", "spec", "checkpoints");
    JsonNode claim = cluster.path("spec").path("template").path("spec").path("volumeClaimPolicies").path(0);
    assertThat(claim.path("templates").path(0).path("metadata").path("name").asText()).isEqualTo("workspace");
    assertThat(claim.path("templates").path(0).path("spec").path("accessModes").path(0).asText()).isEqualTo("ReadWriteMany");
    assertThat(claim.path("retentionPolicy").path("whenDeleted").asText()).isEqualTo("Retain");
    assertThat(Yaml.tree(r.only("TrainingRuntime").body()).path("spec")).isEqualTo(cluster.path("spec"));
  }

  @Test
  void everyRuntimeAndATrainJobOfThreeFieldsMatchTheUpstreamSchemas() {
    CrdSchemas.dir();
    for (String preset : RuntimePresets.NAMES) {
      RuntimePresets.render(preset, List.of()).manifests().forEach(m -> CrdSchemas.assertValid(Yaml.tree(m.body())));
    }
    RuntimeRenderer.render(TestSpecs.tiny()).manifests().forEach(m -> CrdSchemas.assertValid(Yaml.tree(m.body())));
    JsonNode trainJob = Yaml.tree(RuntimeTrainJob.of("sft", "team-a", "weft-llama3.2-1b", true, 4,
        "s3://models/Llama-3.2-1B-Instruct", "s3://data/chat"));
    CrdSchemas.assertValid(trainJob);
    assertThat(trainJob.path("spec").path("trainer").toString()).isEqualTo("{\"numNodes\":4}");
    assertThat(trainJob.path("spec").path("initializer").path("model").path("storageUri").asText()).isEqualTo("s3://models/Llama-3.2-1B-Instruct");
    assertThat(trainJob.path("spec").path("runtimeRef").toString()).isEqualTo("{\"name\":\"weft-llama3.2-1b\"}");
  }

  @Test
  void aSpecWithoutWorkspaceInputsHasOnlyTheNode() {
    JsonNode runtime = Yaml.tree(RuntimeRenderer.render(TestSpecs.tiny()).only("ClusterTrainingRuntime").body());
    assertThat(names(runtime.path("spec").path("template").path("spec").path("replicatedJobs"), "name")).containsExactly("node");
    assertThat(job(runtime, "node").has("dependsOn")).isFalse();
    assertThat(container(job(runtime, "node")).path("command").path(2).asText()).contains("n=1 ;;");
    assertThat(SpecIO.parse(env(container(job(runtime, "node")), "WEFT_SPEC")).tracking().tensorboard())
        .as("event files beside the checkpoints, on the claim").isEqualTo("/checkpoints/tensorboard");
    JsonNode noStorage = Yaml.tree(RuntimeRenderer.render(TestSpecs.tiny("deployment.checkpointStorage.pvc=")).only("ClusterTrainingRuntime").body());
    assertThat(SpecIO.parse(env(container(job(noStorage, "node")), "WEFT_SPEC")).tracking().tensorboard())
        .as("no checkpoint storage: the workspace claim, not the pod's run directory").isEqualTo("/workspace/tensorboard");
  }

  @Test
  void theScriptsAreValidShell() throws Exception {
    JsonNode runtime = Yaml.tree(RuntimePresets.render("weft-llama3.2-3b", List.of()).only("ClusterTrainingRuntime").body());
    for (String name : List.of("model-initializer", "dataset-initializer", "node")) {
      String script = container(job(runtime, name)).path("command").path(2).asText();
      assertThat(script).doesNotContain("$(").as("Kubernetes expands $(NAME) in commands");
      Process p = new ProcessBuilder("/bin/sh", "-n", "-c", script).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(name + ": " + out).isZero();
    }
  }

  @Test
  void specMistakesNameTheField() {
    assertThatThrownBy(() -> RuntimeRenderer.render(TestSpecs.elastic())).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("deployment.nodes");
    assertThatThrownBy(() -> RuntimeRenderer.render(TestSpecs.tiny("deployment.port=29400"))).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("deployment.port");
    assertThatThrownBy(() -> RuntimeRenderer.render(TestSpecs.tiny(), "tiny", new RuntimeInputs(false, true))).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("--chat-data");
    assertThatThrownBy(() -> RuntimePresets.spec("weft-gpt5", List.of())).isInstanceOf(SpecException.class)
        .hasMessageContaining("weft-llama3.2-1b");
  }
}
