package dev.weft.k8s.render;

import dev.weft.error.ExitCodes;
import dev.weft.k8s.crd.JobSet;
import dev.weft.k8s.spec.K8sSpec;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicy;
import io.fabric8.kubernetes.api.model.batch.v1.PodFailurePolicyBuilder;
import java.util.List;

/**
 * Which failures a target retries, from Weft's exit codes: a user mistake (2) and a diverged run (3) fail the same
 * way on every retry, so they are never retried; anything else (a lost peer, a crash, OOM, a signal) restarts the
 * pods, which resume from the latest checkpoint. A disrupted pod (preempted, evicted, drained) is replaced without
 * counting as a failure where the controller can tell (the {@code DisruptionTarget} pod condition).
 */
public final class RetryPolicy {
  /** Exit code of a spec, file or argument the user must fix. */
  public static final int USER_ERROR = ExitCodes.BAD_INPUT;
  /** Exit code of a run whose loss diverged (non-finite or exploding): a retry from the checkpoint diverges again. */
  public static final int DIVERGED = 3;
  public static final List<Integer> NEVER_RETRIED = List.of(USER_ERROR, DIVERGED);
  /** The condition the API server and kubelet put on a pod they disrupt (preemption, eviction, node drain or shutdown). */
  public static final String DISRUPTION_CONDITION = "DisruptionTarget";
  /** The Job failure reason when a podFailurePolicy FailJob rule matched (what the JobSet rule keys on). */
  public static final String POD_FAILURE_POLICY_REASON = "PodFailurePolicy";
  /**
   * PyTorchJob: the kubelet restarts a failed container in place, the operator replaces a deleted pod. {@code ExitCode}
   * would not retry Weft's 2 and 3, but it treats every code below 128 as permanent, so a survivor that exits 1
   * after losing a peer would end the whole job; {@code backoffLimit} bounds what OnFailure retries.
   */
  public static final String PYTORCHJOB_RESTART = "OnFailure";
  /** What the training-operator deletes when the job ends: running pods; failed ones stay for their logs. */
  public static final String CLEAN_POD_POLICY = "Running";

  private RetryPolicy() {}

  /** Retries a run gets before it fails (elastic.maxRestarts). */
  public static int maxRestarts(K8sSpec ks) { return ks.spec().elastic().maxRestarts(); }

  /**
   * For the Job of every Job-based target (restartPolicy Never): disruptions are ignored (the pod is recreated,
   * nothing counted), exit 2 or 3 of the worker container fails the Job at once, the rest counts against backoffLimit.
   */
  public static PodFailurePolicy podFailurePolicy(String container) {
    return new PodFailurePolicyBuilder()
        .addNewRule().withAction("Ignore").addNewOnPodCondition().withType(DISRUPTION_CONDITION).withStatus("True")
        .endOnPodCondition().endRule()
        .addNewRule().withAction("FailJob").withNewOnExitCodes().withContainerName(container).withOperator("In")
        .withValues(NEVER_RETRIED).endOnExitCodes().endRule()
        .build();
  }

  /**
   * JobSet (and Trainer's runtime, a JobSet template): a Job failed by its podFailurePolicy (exit 2 or 3) fails the
   * JobSet; any other Job failure recreates the whole gang, at most maxRestarts times.
   */
  public static JobSet.FailurePolicy jobSetFailurePolicy(K8sSpec ks) {
    return new JobSet.FailurePolicy(maxRestarts(ks), List.of(
        new JobSet.FailurePolicyRule("NeverRetried", "FailJobSet", List.of(POD_FAILURE_POLICY_REASON)),
        new JobSet.FailurePolicyRule("Retried", "RestartJobSet", null)));
  }
}
