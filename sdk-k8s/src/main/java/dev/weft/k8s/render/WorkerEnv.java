package dev.weft.k8s.render;

import dev.weft.comm.NodeAddress;
import dev.weft.k8s.spec.K8sSpec;
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
    int port = ks.deployment().port();
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

  /** The pod's IP, NCCL knobs, checkpoint location, scratch HOME, then the user's env (which wins on a name clash). */
  public static List<EnvVar> common(K8sSpec ks) {
    List<EnvVar> env = new ArrayList<>();
    env.add(podIp());
    new TreeMap<>(ks.deployment().nccl()).forEach((k, v) -> env.add(value(k, v)));
    env.add(value("HOME", WorkerPod.SCRATCH_PATH));
    var storage = ks.deployment().checkpointStorage();
    if (storage.usesObjectStore()) env.add(value("WEFT_CHECKPOINT_URI", storage.uri()));
    env.add(value("WEFT_METRICS_PORT", ks.metricsPort()));
    env.add(value("WEFT_METRICS_BIND", "0.0.0.0")); // scraped from other pods; the spec's default is loopback
    for (Map.Entry<String, String> e : new TreeMap<>(ks.deployment().env()).entrySet()) {
      env.removeIf(v -> v.getName().equals(e.getKey()));
      env.add(value(e.getKey(), e.getValue()));
    }
    return env;
  }
}
