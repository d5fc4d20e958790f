package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import java.util.List;
import java.util.Map;

/** Kubeflow training-operator {@code PyTorchJob} ({@code kubeflow.org/v1}, release 1.9). */
public record PyTorchJob(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "kubeflow.org/v1";
  public static final String KIND = "PyTorchJob";
  /** The container name the operator injects its environment into and reads the port from. */
  public static final String CONTAINER = "pytorch";
  /** The container port name the operator reads MASTER_PORT from. */
  public static final String PORT_NAME = "pytorchjob-port";

  public PyTorchJob(ObjectMeta metadata, Spec spec) { this(API_VERSION, KIND, metadata, spec); }

  public record Spec(RunPolicy runPolicy, ElasticPolicy elasticPolicy, String nprocPerNode,
                     Map<String, ReplicaSpec> pytorchReplicaSpecs) {}

  public record RunPolicy(String cleanPodPolicy, Integer backoffLimit, Integer ttlSecondsAfterFinished,
                          SchedulingPolicy schedulingPolicy) {}

  public record SchedulingPolicy(Integer minAvailable, String queue, String priorityClass) {}

  /** {@code rdzvHost}: null for c10d (the operator then uses {@code <job>-worker-0}); PET_RDZV_ENDPOINT is rdzvHost:rdzvPort. */
  public record ElasticPolicy(Integer minReplicas, Integer maxReplicas, String rdzvBackend, String rdzvHost, Integer rdzvPort,
                              Integer maxRestarts, List<MetricSpec> metrics) {}

  public record ReplicaSpec(Integer replicas, String restartPolicy, PodTemplateSpec template) {}
}
