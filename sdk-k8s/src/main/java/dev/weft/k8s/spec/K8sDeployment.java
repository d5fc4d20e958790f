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
    Map<String, SecretKey> secretEnv,
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
    int autoscaleCpuUtilization,
    int terminationGraceSeconds) {

  public K8sDeployment {
    env = env == null ? Map.of() : Map.copyOf(env);
    secretEnv = secretEnv == null ? Map.of() : Map.copyOf(secretEnv);
    nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    nccl = nccl == null ? Map.of() : Map.copyOf(nccl);
    requests = requests == null ? new Resources(null, null) : requests;
    limits = limits == null ? new Resources(null, null) : limits;
    checkpointStorage = checkpointStorage == null ? new CheckpointStorage(null, null, null, null, null, null, null) : checkpointStorage;
  }

  /** CPU and memory as Kubernetes quantities ("4", "500m", "16Gi"); null leaves it unset. */
  public record Resources(String cpu, String memory) {}

  /** A key of a Secret ({@code deployment.secretEnv} values are written {@code secret-name/key}). */
  public record SecretKey(String secret, String key) {
    @Override public String toString() { return secret + "/" + key; }
  }

  /**
   * Where checkpoints live: a PersistentVolumeClaim {@code pvc} mounted at {@code mountPath} (Weft renders
   * the claim when {@code size} is set), or an object-store {@code uri} (s3://) with credentials from the
   * Secret {@code secret}.
   */
  public record CheckpointStorage(String pvc, String size, String storageClass, String accessMode, String uri,
                                  String secret, String mountPath) {
    @JsonIgnore public boolean usesPvc() { return present(pvc) || rendersClaim(); }
    @JsonIgnore public boolean rendersClaim() { return present(size); }
    @JsonIgnore public boolean usesObjectStore() { return present(uri); }

    /** The claim's name: {@code pvc}, or {@code RUN-checkpoints} for a rendered claim left unnamed. */
    public String claimName(String runName) { return present(pvc) ? pvc : runName + "-checkpoints"; }

    /** Nothing durable configured: no claim (referenced or rendered) and no object store. */
    @JsonIgnore public boolean unset() { return !usesPvc() && !usesObjectStore(); }

    /** This storage as a claim Weft renders, of {@code size}, named {@code RUN-checkpoints}. */
    public CheckpointStorage renderedClaim(String size) {
      return new CheckpointStorage(pvc, size, storageClass, accessMode, uri, secret, mountPath);
    }

    private static boolean present(String s) { return s != null && !s.isBlank(); }
  }

  @JsonIgnore public NodeRange nodeRange() { return NodeRange.parse(nodes); }

  /** This deployment with another image and checkpoint storage (the validator's defaults). */
  K8sDeployment with(String image, CheckpointStorage storage) {
    return new K8sDeployment(image, namespace, nodes, procsPerNode, gpusPerNode, env, secretEnv, requests, limits, nodeSelector,
        affinity, tolerations, priorityClass, queue, storage, shmSize, nccl, port, serviceAccount, monitoringNamespace,
        autoscaleCpuUtilization, terminationGraceSeconds);
  }
}
