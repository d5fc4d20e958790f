package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RenderTest {

  /** Every pod template in a rendered object, wherever the target nests it. */
  static List<JsonNode> podTemplates(JsonNode n) {
    List<JsonNode> out = new ArrayList<>();
    if (n.isObject()) {
      if (n.has("spec") && n.path("spec").has("containers")) out.add(n);
      n.elements().forEachRemaining(c -> out.addAll(podTemplates(c)));
    } else if (n.isArray()) {
      n.forEach(c -> out.addAll(podTemplates(c)));
    }
    return out;
  }

  static List<JsonNode> podTemplates(Rendered r) {
    List<JsonNode> out = new ArrayList<>();
    r.manifests().forEach(m -> out.addAll(podTemplates(Yaml.tree(m.body()))));
    return out;
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void everyTargetHasTheSupportingObjects(Target t) {
    Rendered r = Renderer.render(TestSpecs.tiny(), t);
    assertThat(r.manifests()).extracting(Manifest::kind)
        .contains("ConfigMap", "NetworkPolicy", "PodMonitor").doesNotContain("PodDisruptionBudget");
    assertThat(r.manifests()).allSatisfy(m -> assertThat(m.name()).startsWith("gpt-tiny"));
    assertThat(podTemplates(r)).isNotEmpty();
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void podsAreLockedDownAndHaveTheirVolumes(Target t) {
    for (JsonNode pod : podTemplates(Renderer.render(TestSpecs.tiny(), t))) {
      JsonNode spec = pod.path("spec");
      assertThat(spec.path("securityContext").path("runAsNonRoot").asBoolean()).isTrue();
      assertThat(spec.path("securityContext").path("seccompProfile").path("type").asText()).isEqualTo("RuntimeDefault");
      assertThat(spec.path("automountServiceAccountToken").asBoolean(true)).isFalse();
      JsonNode c = spec.path("containers").path(0);
      JsonNode sc = c.path("securityContext");
      assertThat(sc.path("allowPrivilegeEscalation").asBoolean(true)).isFalse();
      assertThat(sc.path("readOnlyRootFilesystem").asBoolean()).isTrue();
      assertThat(sc.path("capabilities").path("drop").toString()).isEqualTo("[\"ALL\"]");
      assertThat(c.path("command").toString() + c.path("args")).isEqualTo("[\"weft\"][\"worker\",\"--spec\",\"/etc/weft/spec.yaml\",\"--run-dir\",\"/tmp/run\"]");
      assertThat(writableMountHolding(c, "/tmp/run")).as("the run dir is on a writable volume").isTrue();
      assertThat(c.path("volumeMounts").findValuesAsText("mountPath")).containsExactly("/etc/weft", "/dev/shm", "/tmp", "/checkpoints");
      JsonNode vols = spec.path("volumes");
      assertThat(vols.path(1).path("emptyDir").path("medium").asText()).isEqualTo("Memory");
      assertThat(vols.path(3).path("persistentVolumeClaim").path("claimName").asText()).isEqualTo("weft-checkpoints");
      assertThat(spec.path("priorityClassName").asText()).isEqualTo("training");
      assertThat(spec.path("tolerations").path(0).path("key").asText()).isEqualTo("nvidia.com/gpu");
      assertThat(c.path("resources").path("requests").path("memory").asText()).isEqualTo("8Gi");
    }
  }

  private static boolean writableMountHolding(JsonNode container, String path) {
    for (JsonNode m : container.path("volumeMounts")) {
      if (!m.path("readOnly").asBoolean(false) && path.startsWith(m.path("mountPath").asText() + "/")) return true;
    }
    return false;
  }

  @Test
  void theConfigMapHoldsASpecSdkApiCanReadWithCheckpointsOnTheVolume() {
    Rendered r = Renderer.render(TestSpecs.tiny(), Target.JOB);
    String yaml = Yaml.tree(r.only("ConfigMap").body()).path("data").path("spec.yaml").asText();
    var spec = SpecIO.parse(yaml);
    assertThat(spec.checkpoint().dir()).isEqualTo("/checkpoints");
    assertThat(spec.metrics().port()).isZero();
    assertThat(spec.deployment().checkpointStorage().pvc()).isEqualTo("weft-checkpoints"); // the whole deployment section travels
    assertThat(spec.deployment().tolerations()).hasSize(1);
    assertThat(spec.deployment().affinity()).isNull();
  }

  @Test
  void anElasticSpecWithEtcdPointsTheOperatorsRendezvousAtTheUsersEtcd() {
    JsonNode ep = Yaml.tree(Renderer.render(TestSpecs.elastic("elastic.rdzvBackend=etcd", "elastic.rdzvEndpoint=weft-etcd:2379"),
        Target.PYTORCHJOB).only("PyTorchJob").body()).path("spec").path("elasticPolicy");
    assertThat(ep.path("rdzvBackend").asText()).isEqualTo("etcd");
    assertThat(ep.path("rdzvHost").asText()).isEqualTo("weft-etcd"); // the operator sets PET_RDZV_ENDPOINT=rdzvHost:rdzvPort
    assertThat(ep.path("rdzvPort").asInt()).isEqualTo(2379);
    assertThatThrownBy(() -> Renderer.render(TestSpecs.elastic("elastic.rdzvBackend=etcd"), Target.PYTORCHJOB))
        .hasMessageContaining("elastic.rdzvBackend=etcd on Kubernetes needs elastic.rdzvEndpoint");
  }

  @Test
  void anElasticSpecRendersAPyTorchJobWithElasticPolicyMatchingTheNodeRange() {
    Rendered r = Renderer.render(TestSpecs.elastic(), Target.PYTORCHJOB);
    JsonNode job = Yaml.tree(r.only("PyTorchJob").body());
    JsonNode ep = job.path("spec").path("elasticPolicy");
    assertThat(ep.path("minReplicas").asInt()).isEqualTo(1);
    assertThat(ep.path("maxReplicas").asInt()).isEqualTo(4);
    assertThat(ep.path("rdzvBackend").asText()).isEqualTo("c10d");
    assertThat(ep.has("rdzvHost")).as("the operator's default host: worker 0").isFalse();
    assertThat(ep.path("maxRestarts").asInt()).isEqualTo(3);
    assertThat(ep.has("metrics")).as("no metrics: the operator would overwrite the HPA's behaviour").isFalse();
    assertThat(job.path("spec").path("pytorchReplicaSpecs").has("Master")).isFalse();
    JsonNode hpa = Yaml.tree(r.only("HorizontalPodAutoscaler").body());
    assertThat(hpa.path("spec").path("scaleTargetRef").path("kind").asText()).isEqualTo("PyTorchJob");
    assertThat(hpa.path("spec").path("minReplicas").asInt()).isEqualTo(1);
    assertThat(hpa.path("spec").path("maxReplicas").asInt()).isEqualTo(4);
    assertThat(hpa.path("spec").path("metrics").path(0).path("resource").path("name").asText()).isEqualTo("cpu");
    assertThat(Yaml.tree(r.only("PodDisruptionBudget").body()).path("spec").path("maxUnavailable").asInt()).isEqualTo(1);
  }

  @Test
  void aFixedPyTorchJobHasAMasterAndNoHpa() {
    Rendered r = Renderer.render(TestSpecs.tiny(), Target.PYTORCHJOB);
    JsonNode replicas = Yaml.tree(r.only("PyTorchJob").body()).path("spec").path("pytorchReplicaSpecs");
    assertThat(replicas.path("Master").path("replicas").asInt()).isEqualTo(1);
    assertThat(replicas.path("Worker").path("replicas").asInt()).isEqualTo(1);
    assertThat(r.has("HorizontalPodAutoscaler")).isFalse();
  }

  @ParameterizedTest
  @EnumSource(value = Target.class, names = {"TRAINJOB", "JOBSET", "JOB"})
  void elasticRunsAreRefusedWhereTheTargetCannotResize(Target t) {
    assertThatThrownBy(() -> Renderer.render(TestSpecs.elastic(), t)).isInstanceOf(SpecException.class)
        .hasMessageContaining("deployment.nodes").hasMessageContaining("--target pytorchjob");
  }

  @Test
  void theNetworkPolicyAdmitsOnlyTheRunsPodsAndTheMonitoringNamespace() {
    JsonNode np = Yaml.tree(Renderer.render(TestSpecs.tiny(), Target.JOB).only("NetworkPolicy").body()).path("spec");
    assertThat(np.path("policyTypes").toString()).isEqualTo("[\"Ingress\"]");
    JsonNode own = np.path("ingress").path(0);
    assertThat(own.path("from").path(0).path("podSelector").path("matchLabels").path("weft.dev/job").asText()).isEqualTo("gpt-tiny");
    assertThat(own.path("ports").toString()).as("every TCP port, only from the run's pods (Gloo's ports are ephemeral)")
        .isEqualTo("[{\"protocol\":\"TCP\"}]");
    JsonNode mon = np.path("ingress").path(1);
    assertThat(mon.path("from").path(0).path("namespaceSelector").path("matchLabels").path("kubernetes.io/metadata.name").asText())
        .isEqualTo("monitoring");
    assertThat(mon.path("ports").path(0).path("port").asInt()).isEqualTo(9090);
  }

  @Test
  void theQueueLabelsTheJobObjectForKueue() {
    Rendered r = Renderer.render(TestSpecs.tiny(), Target.JOBSET);
    assertThat(Yaml.tree(r.only("JobSet").body()).path("metadata").path("labels").path("kueue.x-k8s.io/queue-name").asText())
        .isEqualTo("team-a");
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void yamlIsClean(Target t) {
    for (Manifest m : Renderer.render(TestSpecs.tiny(), t).manifests()) {
      String y = Yaml.write(m.body());
      assertThat(y).doesNotContain(": null", "additionalProperties", "---");
      assertThat(y).startsWith("apiVersion: ");
    }
  }
}
