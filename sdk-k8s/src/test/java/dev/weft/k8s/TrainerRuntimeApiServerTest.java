package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.apply.Cluster;
import dev.weft.k8s.compat.ApiCompat;
import dev.weft.k8s.katib.KatibRenderer;
import dev.weft.k8s.katib.OptimizationJobRenderer;
import dev.weft.k8s.katib.SearchParameter;
import dev.weft.k8s.trainer.RuntimePresets;
import dev.weft.k8s.workflow.WorkflowRenderer;
import dev.weft.k8s.trainer.RuntimeRenderer;
import dev.weft.k8s.trainer.RuntimeTrainJob;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Weft's Trainer runtimes, TrainJobs that reference them, Argo workflows and Trainer's OptimizationJob, created on
 * kube-apiserver 1.20 with the upstream CRDs installed (CEL rules stripped, see ApiCompat) and read back unchanged.
 */
@Tag("k8s")
class TrainerRuntimeApiServerTest {
  static ApiServer server;

  @BeforeAll
  static void start() throws Exception { server = ApiServer.get(); }

  /** Creates {@code o} (namespaced when it names a namespace) and returns what the server stored. */
  static JsonNode createAndRead(JsonNode o) {
    ObjectNode sent = ApiCompat.CURRENT.convert(new Manifest(o.path("apiVersion").asText(), o.path("kind").asText(),
        o.path("metadata").path("name").asText(), o));
    String ns = sent.path("metadata").path("namespace").asText(null);
    var op = server.client.resource(Cluster.toGeneric(sent));
    GenericKubernetesResource stored = ns == null ? op.create() : op.inNamespace(ns).create();
    JsonNode back = Yaml.mapper().valueToTree(stored);
    List<String> lost = new ArrayList<>(KubeApiServerTest.missing(sent.path("spec"), back.path("spec"), sent.path("kind").asText() + ".spec"));
    assertThat(lost).as("fields of %s/%s the server pruned or changed", sent.path("kind").asText(), sent.path("metadata").path("name").asText())
        .isEmpty();
    return back;
  }

  @Test
  void presetRuntimesAndATrainJobOfThreeFieldsAreAccepted() {
    for (String preset : RuntimePresets.NAMES) {
      for (Manifest m : RuntimePresets.render(preset, List.of()).manifests()) createAndRead(Yaml.tree(m.body()));
    }
    JsonNode job = createAndRead(Yaml.tree(RuntimeTrainJob.of("sft-llama", "default", "weft-llama3.2-1b", true, 4,
        "s3://models/Llama-3.2-1B-Instruct", "s3://data/chat")));
    assertThat(job.path("spec").path("runtimeRef").path("kind").asText()).as("the CRD's default").isEqualTo("ClusterTrainingRuntime");
    createAndRead(Yaml.tree(RuntimeTrainJob.of("sft-qwen", "default", "weft-qwen2.5-1.5b", false, 2,
        "s3://models/Qwen2.5-1.5B-Instruct", "s3://data/chat")));
  }

  @Test
  void theWorkflowItsTemplateAndTheOptimizationJobAreAccepted() {
    for (Manifest m : WorkflowRenderer.render(TestSpecs.tiny("name=pipeline"), "models/pipeline").manifests()) {
      if (m.body() instanceof dev.weft.k8s.crd.CustomObject) createAndRead(Yaml.tree(m.body()));
    }
    var search = new KatibRenderer.Search(List.of(SearchParameter.parse("train.lr=1e-4:1e-3"),
        SearchParameter.parse("parallel.schedule=gpipe,1f1b")), "loss", "minimize", null, "random", 6, 2, 2);
    for (Manifest m : OptimizationJobRenderer.render(TestSpecs.tiny("name=opt-search"), search).manifests()) {
      createAndRead(Yaml.tree(m.body()));
    }
  }

  @Test
  void aRuntimeFromAnySpecIsAccepted() {
    for (Manifest m : RuntimeRenderer.render(TestSpecs.tiny("name=rt-tiny")).manifests()) createAndRead(Yaml.tree(m.body()));
    createAndRead(Yaml.tree(RuntimeTrainJob.of("rt-tiny-run", "default", "rt-tiny", true, 2, null, null)));
  }
}
