package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.check.ManifestCheck;
import dev.weft.k8s.check.RestrictedPodSecurity;
import dev.weft.k8s.render.ManifestWriter;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Manifests a cluster can drain, preempt and scale: grace period, disruption budget, retries, GPUs, checkpoints, security. */
class PreemptionManifestsTest {
  static List<JsonNode> podSpecs(Rendered r) {
    List<JsonNode> out = new ArrayList<>();
    for (Manifest m : r.manifests()) out.addAll(ManifestCheck.podSpecs(Yaml.tree(m.body())));
    return out;
  }

  static List<Rendered> everyTarget(String... overrides) {
    List<Rendered> out = new ArrayList<>();
    for (Target t : Target.values()) out.add(Renderer.render(TestSpecs.tiny(overrides), t));
    out.add(Renderer.render(TestSpecs.elastic(overrides), Target.PYTORCHJOB));
    return out;
  }

  static String env(JsonNode container, String name) {
    for (JsonNode e : container.path("env")) if (e.path("name").asText().equals(name)) return e.path("value").asText();
    return null;
  }

  @Test
  void everyPodHasTheGracePeriodAndEveryContainerItsDeadline() {
    for (String grace : List.of("120", "300")) {
      for (Rendered r : everyTarget("deployment.terminationGraceSeconds=" + grace)) {
        assertThat(podSpecs(r)).isNotEmpty().allSatisfy(pod -> {
          assertThat(pod.path("terminationGracePeriodSeconds").asText()).isEqualTo(grace);
          assertThat(pod.path("containers")).allSatisfy(c -> assertThat(env(c, "WEFT_GRACE_SECONDS")).isEqualTo(grace));
        });
      }
    }
  }

  @Test
  void theDefaultGracePeriodIs120SecondsAndTooShortOneIsRefused() {
    assertThat(TestSpecs.tiny().deployment().terminationGraceSeconds()).isEqualTo(120);
    assertThatThrownBy(() -> TestSpecs.tiny("deployment.terminationGraceSeconds=5")).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("deployment.terminationGraceSeconds: 5 must be 10-3600 seconds");
  }

  /**
   * The disruption controller's arithmetic (pkg/controller/disruption): with maxUnavailable the expected count is the
   * scale of the pods' controller and desiredHealthy = expected − maxUnavailable; with minAvailable desiredHealthy is
   * that number; allowed = healthy − desiredHealthy.
   */
  static int allowedDisruptions(JsonNode pdbSpec, int expected, int healthy) {
    int desired = pdbSpec.has("maxUnavailable") ? expected - pdbSpec.path("maxUnavailable").asInt() : pdbSpec.path("minAvailable").asInt();
    return Math.max(0, healthy - desired);
  }

  @Test
  void anElasticRunAllowsOneDisruptionAtEveryScale() {
    K8sSpec ks = TestSpecs.elastic();
    JsonNode pdb = Yaml.tree(Renderer.render(ks, Target.PYTORCHJOB).only("PodDisruptionBudget").body()).path("spec");
    for (int replicas = ks.nodes().min(); replicas <= ks.nodes().max(); replicas++) {
      assertThat(allowedDisruptions(pdb, replicas, replicas)).as("%d healthy pods of %d", replicas, replicas).isGreaterThanOrEqualTo(1);
    }
    assertThat(allowedDisruptions(pdb, 4, 3)).as("one pod already gone: the next waits").isZero();
  }

  @ParameterizedTest
  @EnumSource(Target.class)
  void aFixedRunHasNoBudgetAndItsJobSaysWhy(Target t, @TempDir Path dir) throws Exception {
    Rendered r = Renderer.render(TestSpecs.tiny(), t);
    assertThat(r.has("PodDisruptionBudget")).isFalse();
    String kind = t == Target.PYTORCHJOB ? "PyTorchJob" : t == Target.TRAINJOB ? "TrainJob" : t == Target.JOBSET ? "JobSet" : "Job";
    Manifest job = r.only(kind);
    ManifestWriter.write(r, dir);
    String file = Files.readString(dir.resolve(job.fileName()));
    assertThat(file).startsWith("# No PodDisruptionBudget: a fixed-size run stops as a whole");
    assertThat(Yaml.read(file).path("kind").asText()).isEqualTo(kind);
  }

  @Test
  void pyTorchJobsRestartOnFailureWithABackoffLimitAndCleanRunningPods() {
    for (K8sSpec ks : List.of(TestSpecs.tiny(), TestSpecs.elastic())) {
      JsonNode spec = Yaml.tree(Renderer.render(ks, Target.PYTORCHJOB).only("PyTorchJob").body()).path("spec");
      assertThat(spec.path("runPolicy").path("cleanPodPolicy").asText()).isEqualTo("Running");
      assertThat(spec.path("runPolicy").path("backoffLimit").asInt()).isEqualTo(3);
      spec.path("pytorchReplicaSpecs").forEach(rs -> assertThat(rs.path("restartPolicy").asText()).isEqualTo("OnFailure"));
    }
  }

  static void assertNeverRetriesUserErrors(JsonNode podFailurePolicy, String container) {
    JsonNode rules = podFailurePolicy.path("rules");
    assertThat(rules.path(0).path("action").asText()).isEqualTo("Ignore");
    assertThat(rules.path(0).path("onPodConditions").path(0).path("type").asText()).isEqualTo("DisruptionTarget");
    assertThat(rules.path(1).path("action").asText()).isEqualTo("FailJob");
    assertThat(rules.path(1).path("onExitCodes").path("containerName").asText()).isEqualTo(container);
    assertThat(rules.path(1).path("onExitCodes").path("operator").asText()).isEqualTo("In");
    assertThat(rules.path(1).path("onExitCodes").path("values").toString()).isEqualTo("[2,3]");
  }

  @Test
  void anIndexedJobIgnoresDisruptionsAndNeverRetriesExit2Or3() {
    JsonNode spec = Yaml.tree(Renderer.render(TestSpecs.tiny(), Target.JOB).only("Job").body()).path("spec");
    assertNeverRetriesUserErrors(spec.path("podFailurePolicy"), "weft");
    assertThat(spec.path("backoffLimit").asInt()).as("maxRestarts rounds of the 2-pod gang").isEqualTo(6);
  }

  @Test
  void aJobSetAndTrainersRuntimeFailOnExit2Or3AndRestartTheGangOtherwise() {
    JsonNode js = Yaml.tree(Renderer.render(TestSpecs.tiny(), Target.JOBSET).only("JobSet").body()).path("spec");
    JsonNode rt = Yaml.tree(Renderer.render(TestSpecs.tiny(), Target.TRAINJOB).only("TrainingRuntime").body())
        .path("spec").path("template").path("spec");
    for (JsonNode jobSet : List.of(js, rt)) {
      JsonNode fp = jobSet.path("failurePolicy");
      assertThat(fp.path("maxRestarts").asInt()).isEqualTo(3);
      assertThat(fp.path("rules").path(0).path("action").asText()).isEqualTo("FailJobSet");
      assertThat(fp.path("rules").path(0).path("onJobFailureReasons").toString()).isEqualTo("[\"PodFailurePolicy\"]");
      assertThat(fp.path("rules").path(1).path("action").asText()).isEqualTo("RestartJobSet");
      JsonNode job = jobSet.path("replicatedJobs").path(0).path("template").path("spec");
      assertThat(job.path("backoffLimit").asInt()).isZero();
      assertNeverRetriesUserErrors(job.path("podFailurePolicy"), jobSet == js ? "weft" : "node");
    }
  }

  @Test
  void gpusAreRequestedOnlyForADeviceThatUsesThem() {
    for (Rendered r : everyTarget("deployment.gpusPerNode=1")) {
      assertThat(podSpecs(r)).allSatisfy(p -> p.path("containers").forEach(c ->
          assertThat(c.path("resources").path("requests").has("nvidia.com/gpu")).isFalse()));
      assertThat(r.warnings()).containsExactly("deployment.gpusPerNode: 1 GPU(s) per node are not requested because device is cpu;"
          + " set device: cuda (or auto) to train on them, or gpusPerNode: 0");
    }
    for (Rendered r : everyTarget("deployment.gpusPerNode=1", "device=cuda")) {
      assertThat(r.warnings()).isEmpty();
      assertThat(podSpecs(r)).allSatisfy(p -> assertThat(p.path("containers").path(0).path("resources").path("limits")
          .path("nvidia.com/gpu").asText()).isEqualTo("1"));
    }
  }

  @Test
  void checkpointsGoOnAClaimByDefaultWhenTheyAreOn() {
    for (Rendered r : everyTarget("deployment.checkpointStorage.pvc=", "checkpoint.every=1000")) {
      JsonNode claim = Yaml.tree(r.only("PersistentVolumeClaim").body());
      assertThat(claim.path("metadata").path("name").asText()).isEqualTo("gpt-tiny-checkpoints");
      assertThat(claim.path("spec").path("accessModes").toString()).isEqualTo("[\"ReadWriteMany\"]");
      assertThat(podSpecs(r)).allSatisfy(p -> assertThat(checkpointVolume(p).path("persistentVolumeClaim").path("claimName").asText())
          .isEqualTo("gpt-tiny-checkpoints"));
    }
    for (Rendered r : everyTarget("deployment.checkpointStorage.pvc=", "checkpoint.every=0")) {
      assertThat(r.has("PersistentVolumeClaim")).as("no checkpoints, no claim").isFalse();
      assertThat(podSpecs(r)).allSatisfy(p -> assertThat(checkpointVolume(p).has("emptyDir")).isTrue());
    }
  }

  static JsonNode checkpointVolume(JsonNode pod) {
    for (JsonNode v : pod.path("volumes")) if (v.path("name").asText().equals("checkpoints")) return v;
    throw new AssertionError("no checkpoints volume");
  }

  @Test
  void theAutoscalerScalesDownOnePodAtATimeAfterAWindow() {
    JsonNode hpa = Yaml.tree(Renderer.render(TestSpecs.elastic(), Target.PYTORCHJOB).only("HorizontalPodAutoscaler").body());
    JsonNode down = hpa.path("spec").path("behavior").path("scaleDown");
    assertThat(down.path("stabilizationWindowSeconds").asInt()).isEqualTo(600);
    assertThat(down.path("policies").path(0).path("type").asText()).isEqualTo("Pods");
    assertThat(down.path("policies").path(0).path("value").asInt()).isEqualTo(1);
    assertThat(down.path("policies").path(0).path("periodSeconds").asInt()).as("grace period + a minute").isEqualTo(180);
  }

  @Test
  void everyContainerOfEveryTargetMeetsRestricted() {
    List<Rendered> all = everyTarget();
    all.addAll(everyTarget("deployment.checkpointStorage.pvc=", "deployment.checkpointStorage.uri=s3://b/runs",
        "deployment.checkpointStorage.secret=s3"));
    for (Rendered r : all) {
      assertThat(ManifestCheck.restricted(r, ManifestCheck.template(ManifestCheck.WEFT_INIT))).isEmpty();
    }
  }

  @Test
  void theOperatorsOwnInitContainerBreaksRestrictedAndWeftsReplacementDoesNot() {
    Rendered fixed = Renderer.render(TestSpecs.tiny(), Target.PYTORCHJOB);
    List<String> v = ManifestCheck.restricted(fixed, ManifestCheck.template(ManifestCheck.OPERATOR_DEFAULT_INIT));
    assertThat(v).contains("PyTorchJob/gpt-tiny: initContainers[init-pytorch].securityContext.allowPrivilegeEscalation must be false",
        "PyTorchJob/gpt-tiny: initContainers[init-pytorch].securityContext.capabilities.drop must contain ALL");
    assertThat(v).allSatisfy(line -> assertThat(line).contains("init-pytorch"));
    Rendered elastic = Renderer.render(TestSpecs.elastic(), Target.PYTORCHJOB);
    assertThat(ManifestCheck.restricted(elastic, ManifestCheck.template(ManifestCheck.OPERATOR_DEFAULT_INIT)))
        .as("no Master, no injected init container").isEmpty();
  }

  @Test
  void theCheckerNamesEachBrokenRule() {
    ObjectNode pod = (ObjectNode) ManifestCheck.podSpecs(Yaml.tree(Renderer.render(TestSpecs.tiny(), Target.JOB).only("Job").body())).get(0);
    ObjectNode sc = (ObjectNode) pod.path("containers").path(0).path("securityContext");
    sc.put("allowPrivilegeEscalation", true);
    sc.remove("capabilities");
    ((ObjectNode) pod.path("securityContext")).remove("seccompProfile");
    ((ObjectNode) pod.path("securityContext")).remove("runAsNonRoot");
    sc.remove("runAsNonRoot");
    pod.put("hostNetwork", true);
    pod.withArray("volumes").addObject().put("name", "host").putObject("hostPath").put("path", "/");
    assertThat(RestrictedPodSecurity.violations(pod)).containsExactlyInAnyOrder(
        "spec.hostNetwork must be false",
        "volume host: type hostPath is not allowed",
        "containers[weft].securityContext.allowPrivilegeEscalation must be false",
        "containers[weft].securityContext.runAsNonRoot must be true (here or in the pod's securityContext)",
        "containers[weft].securityContext.seccompProfile.type must be RuntimeDefault or Localhost (here or in the pod's)",
        "containers[weft].securityContext.capabilities.drop must contain ALL");
  }
}
