package dev.weft.k8s.render;

import dev.weft.comm.NodeAddress;
import dev.weft.k8s.spec.K8sDeployment;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.log.LogFormat;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The environment variables Weft itself sets on a worker (the operators add theirs; see
 * docs/kubernetes.md for the whole contract per target).
 */
public final class WorkerEnv {
  /** The pod annotation an Indexed Job's controller sets to the pod's completion index. */
  public static final String COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index";
  /** Keys of the object-store Secret every pod needs, and those it may hold (region, endpoint of an S3-compatible store). */
  public static final List<String> OBJECT_STORE_REQUIRED = List.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY");
  public static final List<String> OBJECT_STORE_OPTIONAL = List.of("AWS_SESSION_TOKEN", "AWS_REGION", "AWS_ENDPOINT_URL");

  /** The pod's terminationGracePeriodSeconds, for the workers' SIGTERM deadline (the save must end before SIGKILL). */
  public static final String GRACE_SECONDS = "WEFT_GRACE_SECONDS";

  private WorkerEnv() {}

  public static EnvVar value(String name, Object value) {
    return new EnvVarBuilder().withName(name).withValue(String.valueOf(value)).build();
  }

  /** An env var that reads the Indexed-Job completion index from the pod's annotation. */
  public static EnvVar completionIndex(String name) {
    return new EnvVarBuilder().withName(name).withNewValueFrom().withNewFieldRef()
        .withFieldPath("metadata.annotations['" + COMPLETION_INDEX_ANNOTATION + "']").endFieldRef().endValueFrom().build();
  }

  /**
   * For targets without an operator that injects the rendezvous (Indexed Job, JobSet): the node rank is the
   * completion index and rank 0 is the pod whose DNS name is {@code masterHost}.
   */
  public static List<EnvVar> staticRendezvous(K8sSpec ks, String masterHost) {
    int port = RankPorts.of(ks).store();
    return List.of(
        value("WORLD_SIZE", ks.maxWorldSize()),
        value("MASTER_ADDR", masterHost),
        value("MASTER_PORT", port),
        value("PET_NNODES", ks.nodes().max()),
        value("PET_NPROC_PER_NODE", ks.procsPerNode()),
        completionIndex("PET_NODE_RANK"),
        value("PET_MASTER_ADDR", masterHost),
        value("PET_MASTER_PORT", port));
  }

  /** The pod's own IP from the downward API: what its ranks bind to and advertise (see NodeAddress). */
  public static EnvVar podIp() {
    return new EnvVarBuilder().withName(NodeAddress.POD_IP).withNewValueFrom().withNewFieldRef()
        .withFieldPath("status.podIP").endFieldRef().endValueFrom().build();
  }

  /**
   * The pod's IP, NCCL knobs, scratch HOME, metrics, log format, grace period, the object store's credentials, then the
   * user's env and secretEnv (which win on a name clash).
   */
  public static List<EnvVar> common(K8sSpec ks) {
    List<EnvVar> env = new ArrayList<>();
    env.add(podIp());
    new TreeMap<>(ks.deployment().nccl()).forEach((k, v) -> env.add(value(k, v)));
    env.add(value("HOME", WorkerPod.SCRATCH_PATH));
    env.add(value("WEFT_METRICS_PORT", RankPorts.of(ks).metrics()));
    env.add(value("WEFT_METRICS_BIND", "0.0.0.0")); // scraped from other pods; the spec's default is loopback
    env.add(value(LogFormat.ENV, ks.spec().logging().format())); // so the lines before the spec is read match too
    env.add(value(GRACE_SECONDS, ks.deployment().terminationGraceSeconds())); // the emergency save's deadline
    var storage = ks.deployment().checkpointStorage();
    if (storage.usesObjectStore()) env.addAll(objectStoreCredentials(storage.secret()));
    for (Map.Entry<String, String> e : new TreeMap<>(ks.deployment().env()).entrySet()) put(env, value(e.getKey(), e.getValue()));
    ks.deployment().secretEnv().forEach((name, ref) -> put(env, secretKey(name, ref, false)));
    return env;
  }

  /** The variables the AWS SDK reads, each from the key of the same name in Secret {@code secret}. */
  static List<EnvVar> objectStoreCredentials(String secret) {
    List<EnvVar> env = new ArrayList<>();
    for (String name : OBJECT_STORE_REQUIRED) env.add(secretKey(name, new K8sDeployment.SecretKey(secret, name), false));
    for (String name : OBJECT_STORE_OPTIONAL) env.add(secretKey(name, new K8sDeployment.SecretKey(secret, name), true));
    return env;
  }

  /** {@code name} from a Secret's key: the value reaches the container's environment and nothing else. */
  public static EnvVar secretKey(String name, K8sDeployment.SecretKey ref, boolean optional) {
    return new EnvVarBuilder().withName(name).withNewValueFrom().withNewSecretKeyRef().withName(ref.secret())
        .withKey(ref.key()).withOptional(optional ? Boolean.TRUE : null).endSecretKeyRef().endValueFrom().build();
  }

  private static void put(List<EnvVar> env, EnvVar v) {
    env.removeIf(e -> e.getName().equals(v.getName()));
    env.add(v);
  }
}
