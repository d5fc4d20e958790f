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

  /** {@code rules}: evaluated in order on a child Job's failure; none matching restarts the JobSet. */
  public record FailurePolicy(Integer maxRestarts, List<FailurePolicyRule> rules) {}

  /** One failure-policy rule: {@code action} when a child Job fails for one of {@code onJobFailureReasons}. */
  public record FailurePolicyRule(String name, String action, List<String> onJobFailureReasons) {}

  public record SuccessPolicy(String operator, List<String> targetReplicatedJobs) {}
}
