package dev.weft.k8s.render;

import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpec;
import io.fabric8.kubernetes.api.model.batch.v1.JobSpecBuilder;
import java.util.List;

/**
 * A plain Indexed Job plus a headless Service: pod i is {@code NAME-i.NAME}, its node rank is its
 * completion index, and rank 0 ({@code NAME-0.NAME}) is the master. Needs Kubernetes 1.24+ (Indexed Job GA).
 */
public final class IndexedJobRenderer {
  public static final String PORT_NAME = "rendezvous";
  public static final String CONTAINER = "weft";

  private IndexedJobRenderer() {}

  public static List<Manifest> render(K8sSpec ks, List<String> extraArgs) {
    return List.of(SupportObjects.headlessService(ks, PORT_NAME), Manifest.of(new JobBuilder()
        .withMetadata(Labels.jobMeta(ks, ks.name())).withSpec(indexedJobSpec(ks, masterHost(ks), ks.name(), extraArgs))
        .build()));
  }

  public static String masterHost(K8sSpec ks) { return ks.name() + "-0." + ks.name(); }

  /**
   * An Indexed Job spec with one pod per node, all started together (shared with the JobSet target). A failure
   * stops the whole gang, each pod failing once, so backoffLimit allows maxRestarts such rounds.
   */
  static JobSpec indexedJobSpec(K8sSpec ks, String masterHost, String subdomain, List<String> extraArgs) {
    int n = ks.nodes().max();
    return new JobSpecBuilder()
        .withCompletions(n).withParallelism(n).withCompletionMode("Indexed")
        .withBackoffLimit(RetryPolicy.maxRestarts(ks) * n)
        .withPodFailurePolicy(RetryPolicy.podFailurePolicy(CONTAINER))
        .withTemplate(WorkerPod.template(ks, new WorkerPod.Options(CONTAINER, PORT_NAME,
            WorkerEnv.staticRendezvous(ks, masterHost), extraArgs, "Never", subdomain)))
        .build();
  }
}
