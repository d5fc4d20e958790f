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
  void weftK8sApplyInstallsARuntime() {
    System.setProperty("kubeconfig", server.kubeconfig.toString()); // for the CLI's own client
    Cli applied = Cli.run("apply", TestSpecs.path("gpt-tiny.yaml").toString(), "--target", "runtime", "--set", "name=applied-rt");
    assertThat(applied.code()).as(applied.err()).isZero();
    assertThat(applied.out()).contains("ClusterTrainingRuntime/applied-rt", "TrainingRuntime/applied-rt");
    assertThat(server.client.genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime")
        .withName("applied-rt").get()).isNotNull();
  }

  @Test
  void aRuntimeFromAnySpecIsAccepted() {
    for (Manifest m : RuntimeRenderer.render(TestSpecs.tiny("name=rt-tiny")).manifests()) createAndRead(Yaml.tree(m.body()));
    createAndRead(Yaml.tree(RuntimeTrainJob.of("rt-tiny-run", "default", "rt-tiny", true, 2, null, null)));
  }

  @Test
  void statusShowsATrainJobsProgressAndDeleteRemovesEveryNewKind() {
    System.setProperty("kubeconfig", server.kubeconfig.toString()); // for the CLI's own client
    String run = "k8s-kinds";
    var search = new KatibRenderer.Search(List.of(SearchParameter.parse("train.lr=1e-4:1e-3")), "loss", "minimize", null, "random",
        2, 1, 1);
    java.util.Set<String> created = new java.util.HashSet<>(); // the OptimizationJob's render holds the runtime again
    for (var r : List.of(RuntimeRenderer.render(TestSpecs.tiny("name=" + run)), WorkflowRenderer.render(TestSpecs.tiny("name=" + run),
        "models/" + run), OptimizationJobRenderer.render(TestSpecs.tiny("name=" + run), search))) {
      for (Manifest m : r.manifests()) {
        if (m.body() instanceof dev.weft.k8s.crd.CustomObject && created.add(m.kind() + "/" + m.name())) createAndRead(Yaml.tree(m.body()));
      }
    }
    // a TrainJob of three fields, as a user submits it (no Weft label), with the progress rank 0 reported (KEP-2779)
    createAndRead(Yaml.tree(RuntimeTrainJob.of(run + "-job", "default", run, true, 2, null, null)));
    var jobs = server.client.genericKubernetesResources("trainer.kubeflow.org/v1alpha1", "TrainJob").inNamespace("default");
    GenericKubernetesResource job = jobs.withName(run + "-job").get();
    job.setAdditionalProperty("status", java.util.Map.of("trainerStatus", java.util.Map.of("progressPercentage", 45,
        "estimatedRemainingSeconds", 800, "lastUpdatedTime", "2026-12-03T04:30:00Z", "metrics", List.of(
            java.util.Map.of("name", "loss", "value", "2.31"), java.util.Map.of("name", "current_step", "value", "450"),
            java.util.Map.of("name", "total_steps", "value", "1000")))));
    server.client.resource(job).inNamespace("default").updateStatus();

    Cli status = Cli.run("status", run + "-job");
    assertThat(status.code()).as(status.err()).isZero();
    assertThat(status.out()).contains("TrainJob/" + run + "-job: no conditions yet",
        "progress 45%, about 13m20s left, step 450/1000, loss=2.31 (at 2026-12-03T04:30:00Z)");
    java.io.StringWriter kinds = new java.io.StringWriter();
    new Cluster(server.client).status("default", run, new java.io.PrintWriter(kinds, true)); // not closed: the server's client
    assertThat(kinds.toString()).contains("Workflow/" + run + ":", "OptimizationJob/" + run + ":", "ClusterTrainingRuntime/" + run,
        "TrainingRuntime/" + run, "WorkflowTemplate/" + run);

    Cli deleted = Cli.run("delete", run);
    assertThat(deleted.code()).as(deleted.err()).isZero();
    assertThat(deleted.out()).contains("deleted Workflow/" + run, "deleted OptimizationJob/" + run, "deleted TrainingRuntime/" + run,
        "deleted ClusterTrainingRuntime/" + run, "deleted WorkflowTemplate/" + run);
    assertThat(new Cluster(server.client).find("default", run)).isEmpty(); // not closed: the client is the server's
    jobs.withName(run + "-job").delete();
  }
}
