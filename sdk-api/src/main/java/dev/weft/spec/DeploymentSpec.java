package dev.weft.spec;

import java.util.List;
import java.util.Map;

/**
 * Where the job runs when it leaves this machine (read by the optional Kubernetes module; ignored
 * by local runs). {@code nodes} is a count ("2") or an elastic range ("1:4").
 */
public record DeploymentSpec(
    String image,
    String namespace,
    String nodes,
    int procsPerNode,
    int gpusPerNode,
    Map<String, String> env,
    Map<String, String> secretEnv,          // NAME -> secret-name/key; only references, never values
    Resources requests,
    Resources limits,
    Map<String, String> nodeSelector,
    Map<String, Object> affinity,            // a core/v1 Affinity, kept as a tree (sdk-api has no Kubernetes types)
    List<Map<String, Object>> tolerations,   // core/v1 Tolerations
    String priorityClass,
    String queue,
    CheckpointStorage checkpointStorage,
    String shmSize,
    Map<String, String> nccl,
    int port,
    String serviceAccount,
    String monitoringNamespace,
    int autoscaleCpuUtilization,
    int terminationGraceSeconds) {           // SIGTERM → SIGKILL on a pod; rendered, and the emergency save's deadline

  public DeploymentSpec {
    env = env == null ? Map.of() : Map.copyOf(env);
    secretEnv = secretEnv == null ? Map.of() : Map.copyOf(secretEnv);
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    nccl = nccl == null ? Map.of() : Map.copyOf(nccl);
    // affinity may be null (no affinity) and its tree may hold nulls, so it is not copied with Map.copyOf.
  }

  /** CPU and memory as Kubernetes quantities ("4", "500m", "16Gi"); null leaves it unset. */
  public record Resources(String cpu, String memory) {}

  /**
   * A PVC mounted at mountPath (referenced by {@code pvc}, or rendered when {@code size} is set), or an
   * object-store uri (s3://) with credentials in Secret {@code secret}.
   */
  public record CheckpointStorage(String pvc, String size, String storageClass, String accessMode, String uri,
                                  String secret, String mountPath) {}
}
