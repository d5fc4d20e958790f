package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.apply.ApplyPlan;
import dev.weft.k8s.compat.ApiCompat;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Discovery decides what is sent: optional objects without their API are skipped, one line each; required ones refuse. */
class ApplyPlanTest {
  /** A cluster serving the built-in kinds plus {@code extra} groups. */
  static ApplyPlan.Served serving(String... groups) {
    Set<String> g = Set.of(groups);
    return new ApplyPlan.Served() {
      @Override public boolean kind(String apiVersion, String kind) {
        int slash = apiVersion.indexOf('/');
        String group = slash < 0 ? "" : apiVersion.substring(0, slash);
        return !group.contains(".") || group.endsWith(".k8s.io") && !group.endsWith(".x-k8s.io") || g.contains(group);
      }

      @Override public boolean group(String group) { return g.contains(group); }
    };
  }

  @Test
  void withoutThePrometheusOperatorOrKueueThePodMonitorAndQueueLabelAreSkipped() {
    ApplyPlan p = ApplyPlan.of(Renderer.render(TestSpecs.tiny(), Target.JOBSET), ApiCompat.CURRENT, serving("jobset.x-k8s.io"));
    assertThat(p.objects()).extracting(o -> o.path("kind").asText()).containsExactly("ConfigMap", "NetworkPolicy", "JobSet");
    assertThat(p.skipped()).containsExactly(
        "PodMonitor/gpt-tiny: the cluster does not serve monitoring.coreos.com/v1 PodMonitor; metrics are still served on the"
            + " pods' metrics ports, but nothing scrapes them",
        "label kueue.x-k8s.io/queue-name=team-a on JobSet/gpt-tiny: the cluster does not serve kueue.x-k8s.io (Kueue); the job is"
            + " admitted without a queue");
    ObjectNode jobSet = p.objects().get(2);
    assertThat(jobSet.path("metadata").path("labels").has("kueue.x-k8s.io/queue-name")).isFalse();
  }

  @Test
  void withThemEverythingIsSent() {
    ApplyPlan p = ApplyPlan.of(Renderer.render(TestSpecs.tiny(), Target.JOBSET), ApiCompat.CURRENT,
        serving("jobset.x-k8s.io", "monitoring.coreos.com", "kueue.x-k8s.io"));
    assertThat(p.objects()).extracting(o -> o.path("kind").asText()).containsExactly("ConfigMap", "NetworkPolicy", "PodMonitor", "JobSet");
    assertThat(p.skipped()).isEmpty();
    assertThat(p.objects().get(3).path("metadata").path("labels").path("kueue.x-k8s.io/queue-name").asText()).isEqualTo("team-a");
  }

  @Test
  void withoutAutoscalingAnElasticRunKeepsItsNodeCount() {
    ApplyPlan.Served noHpa = new ApplyPlan.Served() {
      @Override public boolean kind(String apiVersion, String kind) { return !kind.equals("HorizontalPodAutoscaler"); }

      @Override public boolean group(String group) { return true; }
    };
    ApplyPlan p = ApplyPlan.of(Renderer.render(TestSpecs.elastic(), Target.PYTORCHJOB), ApiCompat.CURRENT, noHpa);
    assertThat(p.skipped()).containsExactly("HorizontalPodAutoscaler/gpt-tiny: the cluster does not serve autoscaling/v2"
        + " HorizontalPodAutoscaler; the run keeps its node count (no autoscaling)");
    assertThat(p.objects()).extracting(o -> o.path("kind").asText()).contains("PyTorchJob", "PodDisruptionBudget");
  }

  @Test
  void anIndexedJobsPodFailurePolicyIsSentFrom126Only() {
    var job = Renderer.render(TestSpecs.tiny(), Target.JOB).only("Job");
    assertThat(new ApiCompat(25).convert(job).path("spec").has("podFailurePolicy")).isFalse();
    assertThat(new ApiCompat(26).convert(job).path("spec").has("podFailurePolicy")).isTrue();
  }

  @Test
  void aJobObjectWithoutItsOperatorRefusesTheWholeApply() {
    assertThatThrownBy(() -> ApplyPlan.of(Renderer.render(TestSpecs.tiny(), Target.PYTORCHJOB), ApiCompat.CURRENT, serving()))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessage("PyTorchJob/gpt-tiny cannot run here: the cluster does not serve kubeflow.org/v1 PyTorchJob; install its"
            + " operator/CRD or choose another --target (nothing was applied)");
  }
}
