package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpec;
import java.util.List;

/** {@code JobSet} ({@code jobset.x-k8s.io/v1alpha2}, kubernetes-sigs/jobset). */
public record JobSet(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "jobset.x-k8s.io/v1alpha2";
  public static final String KIND = "JobSet";

  public JobSet(ObjectMeta metadata, Spec spec) { this(API_VERSION, KIND, metadata, spec); }

  public record Spec(List<ReplicatedJob> replicatedJobs, Network network, FailurePolicy failurePolicy,
                     SuccessPolicy successPolicy) {}

  public record ReplicatedJob(String name, Integer replicas, JobTemplateSpec template) {}

  public record Network(Boolean enableDNSHostnames, String subdomain, Boolean publishNotReadyAddresses) {}

  public record FailurePolicy(Integer maxRestarts) {}

  public record SuccessPolicy(String operator, List<String> targetReplicatedJobs) {}
}
