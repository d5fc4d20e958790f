package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpec;
import java.util.List;

/** {@code JobSet} ({@code jobset.x-k8s.io/v1alpha2}, kubernetes-sigs/jobset). */
public record JobSet(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "jobset.x-k8s.io/v1alpha2";
  public static final String KIND = "JobSet";

  public JobSet(ObjectMeta metadata, Spec spec) { this(API_VERSION, KIND, metadata, spec); }

  /** {@code volumeClaimPolicies}: claims JobSet creates per JobSet ({@code <claim>-<jobset>}) and adds to pods that mount them. */
  public record Spec(List<ReplicatedJob> replicatedJobs, Network network, FailurePolicy failurePolicy,
                     SuccessPolicy successPolicy, List<VolumeClaimPolicy> volumeClaimPolicies) {
    public Spec(List<ReplicatedJob> replicatedJobs, Network network, FailurePolicy failurePolicy, SuccessPolicy successPolicy) {
      this(replicatedJobs, network, failurePolicy, successPolicy, null);
    }
  }

  /** {@code dependsOn}: this replicated job starts once each named one is {@code Ready} or {@code Complete}. */
  public record ReplicatedJob(String name, List<DependsOn> dependsOn, Integer replicas, JobTemplateSpec template) {
    public ReplicatedJob(String name, Integer replicas, JobTemplateSpec template) { this(name, null, replicas, template); }
  }

  public record DependsOn(String name, String status) {}

  /** {@code retentionPolicy.whenDeleted}: {@code Delete} (the default) or {@code Retain} the claims with the JobSet. */
  public record VolumeClaimPolicy(List<io.fabric8.kubernetes.api.model.PersistentVolumeClaim> templates, RetentionPolicy retentionPolicy) {}

  public record RetentionPolicy(String whenDeleted) {}

  public record Network(Boolean enableDNSHostnames, String subdomain, Boolean publishNotReadyAddresses) {}

  /** {@code rules}: evaluated in order on a child Job's failure; none matching restarts the JobSet. */
  public record FailurePolicy(Integer maxRestarts, List<FailurePolicyRule> rules) {}

  /** One failure-policy rule: {@code action} when a child Job fails for one of {@code onJobFailureReasons}. */
  public record FailurePolicyRule(String name, String action, List<String> onJobFailureReasons) {}

  public record SuccessPolicy(String operator, List<String> targetReplicatedJobs) {}
}
