package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.k8s.apply.Cluster;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code weft k8s apply/delete} on a real kube-apiserver 1.20 with and without the Prometheus Operator's CRD. */
@Tag("k8s")
class ApplyOnAnyClusterTest {
  static ApiServer server;
  static Cluster cluster;
  static final String SPEC = TestSpecs.path("gpt-tiny.yaml").toString();

  @BeforeAll
  static void start() throws Exception {
    server = ApiServer.get();
    cluster = new Cluster(server.client);
    System.setProperty("kubeconfig", server.kubeconfig.toString());
    // The test spec's priorityClass, as a cluster for it would have it (pods naming a missing class are refused).
    server.client.resource(new io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder().withNewMetadata()
        .withName("training").endMetadata().withValue(1000).build()).createOr(x -> x.update());
  }

  static boolean exists(String apiVersion, String kind, String name) {
    return server.client.genericKubernetesResources(apiVersion, kind).inNamespace("default").withName(name).get() != null;
  }

  @Test
  void withoutThePrometheusOperatorTheJobIsCreatedAndDeleteRemovesEverything() {
    server.without(CrdSchemas.PODMONITOR_FILE, () -> {
      Cli applied = Cli.run("apply", SPEC, "--target", "jobset", "--set", "name=no-prom");
      assertThat(applied.code()).as(applied.err()).isZero();
      assertThat(applied.out()).contains(
          "skipped PodMonitor/no-prom: the cluster does not serve monitoring.coreos.com/v1 PodMonitor",
          "skipped label kueue.x-k8s.io/queue-name=team-a on JobSet/no-prom",
          "applied ConfigMap/no-prom-spec", "applied NetworkPolicy/no-prom", "applied JobSet/no-prom");
      assertThat(exists("jobset.x-k8s.io/v1alpha2", "JobSet", "no-prom")).isTrue();

      Cli deleted = Cli.run("delete", "no-prom");
      assertThat(deleted.code()).as(deleted.err()).isZero();
      assertThat(deleted.out()).contains("deleted JobSet/no-prom", "deleted NetworkPolicy/no-prom", "deleted ConfigMap/no-prom-spec");
      assertThat(cluster.find("default", "no-prom")).isEmpty();
      assertThat(exists("v1", "ConfigMap", "no-prom-spec")).isFalse();
    });
  }

  @Test
  void withItThePodMonitorIsAppliedAndDeleted() {
    Cli applied = Cli.run("apply", SPEC, "--target", "pytorchjob", "--set", "name=with-prom", "--set", "deployment.nodes=1:3");
    assertThat(applied.code()).as(applied.err()).isZero();
    assertThat(applied.out()).contains("applied PodMonitor/with-prom", "applied PodDisruptionBudget/with-prom",
        "applied HorizontalPodAutoscaler/with-prom", "applied PyTorchJob/with-prom").doesNotContain("skipped PodMonitor");
    assertThat(exists("monitoring.coreos.com/v1", "PodMonitor", "with-prom")).isTrue();

    Cli deleted = Cli.run("delete", "with-prom");
    assertThat(deleted.code()).as(deleted.err()).isZero();
    assertThat(deleted.out()).contains("deleted PodMonitor/with-prom", "deleted PyTorchJob/with-prom");
    assertThat(cluster.find("default", "with-prom")).isEmpty();
  }

  /** The job object is refused by its CRD's schema (a pod affinity term without topologyKey): nothing else is created. */
  @Test
  void nothingIsCreatedWhenTheDryRunRefusesAnyObject() {
    Rendered r = Renderer.render(TestSpecs.tiny("name=refused",
        "deployment.affinity={podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {}}]}}"), Target.JOBSET);
    assertThatThrownBy(() -> cluster.apply(r)).isInstanceOf(KubernetesClientException.class)
        .hasMessageStartingWith("the server's dry run refused JobSet/refused:").hasMessageContaining("topologyKey")
        .hasMessageEndingWith("(nothing was applied)");
    assertThat(cluster.find("default", "refused")).isEmpty();
    assertThat(exists("v1", "ConfigMap", "refused-spec")).isFalse();
  }

  @Test
  void renderCheckRunsTheServersDryRunAndTheRestrictedRules() {
    for (Target t : new Target[] {Target.PYTORCHJOB, Target.TRAINJOB, Target.JOBSET}) {
      Cli r = Cli.run("render", SPEC, "--target", t.cliName(), "--set", "name=check-" + t.cliName(), "--check");
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.out()).contains("objects accepted by the server's dry run; every pod meets PodSecurity restricted");
      assertThat(cluster.find("default", "check-" + t.cliName())).as("a dry run stores nothing").isEmpty();
      if (t == Target.TRAINJOB) assertThat(r.out()).contains("skipped TrainJob/check-trainjob: not dry-run, its TrainingRuntime");
    }
    Cli bad = Cli.run("render", SPEC, "--target", "jobset", "--set", "name=check-bad", "--check", "--set",
        "deployment.affinity={podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {}}]}}");
    assertThat(bad.code()).isEqualTo(1);
    assertThat(bad.err()).contains("check failed: server: JobSet/check-bad:");
    Cli noClass = Cli.run("render", SPEC, "--target", "jobset", "--set", "name=check-class", "--check", "--set",
        "deployment.priorityClass=missing");
    assertThat(noClass.code()).isEqualTo(1);
    assertThat(noClass.err()).contains("check failed: server: a pod of JobSet/check-class (template 0):",
        "no PriorityClass with name missing was found");
  }

  /** The PyTorchJob's schema takes any string map as a nodeSelector; its pods, dry-run as Pods, do not. */
  @Test
  void renderCheckDryRunsTheCustomResourcesPodsAsPods() {
    Cli r = Cli.run("render", SPEC, "--target", "pytorchjob", "--set", "name=check-pods", "--check", "--set",
        "deployment.nodeSelector={\"bad key\": x}");
    assertThat(r.code()).as(r.out()).isEqualTo(1);
    assertThat(r.err()).contains("check failed: server: a pod of PyTorchJob/check-pods (template 0):", "bad key")
        .doesNotContain("check failed: server: PyTorchJob/check-pods:");
  }
}
