package dev.weft.k8s.spec;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;

/**
 * The spec's {@link dev.weft.spec.DeploymentSpec} as the Kubernetes renderers use it: affinity and
 * tolerations as Kubernetes objects, the image defaulted. Built by {@link K8sSpecLoader}; the defaults
 * are sdk-api's {@code defaults.yaml}.
 */
public record K8sDeployment(
    String image,
    String namespace,
    String nodes,
    int procsPerNode,
    int gpusPerNode,
    Map<String, String> env,
    Resources requests,
    Resources limits,
    Map<String, String> nodeSelector,
    Affinity affinity,
    List<Toleration> tolerations,
    String priorityClass,
    String queue,
    CheckpointStorage checkpointStorage,
    String shmSize,
    Map<String, String> nccl,
    int port,
    String serviceAccount,
    String monitoringNamespace,
    int autoscaleCpuUtilization) {

  public K8sDeployment {
    env = env == null ? Map.of() : Map.copyOf(env);
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    nccl = nccl == null ? Map.of() : Map.copyOf(nccl);
    requests = requests == null ? new Resources(null, null) : requests;
    limits = limits == null ? new Resources(null, null) : limits;
    checkpointStorage = checkpointStorage == null ? new CheckpointStorage(null, null, null, null) : checkpointStorage;
  }

  /** CPU and memory as Kubernetes quantities ("4", "500m", "16Gi"); null leaves it unset. */
  public record Resources(String cpu, String memory) {}

  /**
   * Where checkpoints live: a PersistentVolumeClaim ({@code pvc}) mounted at {@code mountPath}, or an
   * object-store {@code uri} (s3://, gs://) with credentials from the Secret {@code secret}.
   */
  public record CheckpointStorage(String pvc, String uri, String secret, String mountPath) {
    @JsonIgnore public boolean usesPvc() { return pvc != null && !pvc.isBlank(); }
    @JsonIgnore public boolean usesObjectStore() { return uri != null && !uri.isBlank(); }
  }

  @JsonIgnore public NodeRange nodeRange() { return NodeRange.parse(nodes); }
}
