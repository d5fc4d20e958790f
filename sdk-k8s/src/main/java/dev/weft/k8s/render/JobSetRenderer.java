package dev.weft.k8s.render;

import dev.weft.k8s.crd.JobSet;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpecBuilder;
import java.util.List;

/**
 * A JobSet with one replicated job {@code workers} holding one Indexed Job: pod i is
 * {@code NAME-workers-0-i.NAME} (JobSet creates the headless Service), node rank = completion index.
 */
public final class JobSetRenderer {
  public static final String REPLICATED_JOB = "workers";

  private JobSetRenderer() {}

  public static List<Manifest> render(K8sSpec ks, List<String> extraArgs) {
    var job = new JobTemplateSpecBuilder()
        .withSpec(IndexedJobRenderer.indexedJobSpec(ks, masterHost(ks), null, extraArgs))
        .editSpec().withBackoffLimit(0).endSpec() // a failed pod fails the Job; JobSet restarts the whole gang (RetryPolicy)
        .build();
    return List.of(Manifest.of(new JobSet(Labels.jobMeta(ks, ks.name()), new JobSet.Spec(
        List.of(new JobSet.ReplicatedJob(REPLICATED_JOB, 1, job)),
        new JobSet.Network(true, ks.name(), true),
        RetryPolicy.jobSetFailurePolicy(ks),
        new JobSet.SuccessPolicy("All", null)))));
  }

  public static String masterHost(K8sSpec ks) { return ks.name() + "-" + REPLICATED_JOB + "-0-0." + ks.name(); }
}
