package dev.weft.k8s.render;

import dev.weft.error.WeftException;
import dev.weft.spec.Endpoint;
import dev.weft.elastic.RendezvousBackend;
import dev.weft.k8s.crd.PyTorchJob;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Kubeflow PyTorchJob. Fixed size: one Master and nodes-1 Workers; the operator injects RANK,
 * WORLD_SIZE, MASTER_ADDR/PORT and PET_*. Elastic ({@code nodes: MIN:MAX}): Workers only, with an
 * {@code elasticPolicy} (c10d rendezvous on worker 0, or etcd at {@code elastic.rdzvEndpoint}; min/max replicas, max restarts), and
 * Weft's HPA, which scales down one pod at a time after a stabilisation window (each leaving pod saves first).
 */
public final class PyTorchJobRenderer {
  private PyTorchJobRenderer() {}

  public static List<Manifest> render(K8sSpec ks, List<String> extraArgs) {
    PyTorchJob job = job(ks, extraArgs);
    if (!ks.elastic()) return List.of(Manifest.of(job));
    return List.of(Manifest.of(job),
        SupportObjects.horizontalPodAutoscaler(ks, PyTorchJob.API_VERSION, PyTorchJob.KIND));
  }

  public static PyTorchJob job(K8sSpec ks, List<String> extraArgs) {
    int restarts = RetryPolicy.maxRestarts(ks);
    String restart = RetryPolicy.PYTORCHJOB_RESTART;
    Map<String, PyTorchJob.ReplicaSpec> replicas = new LinkedHashMap<>();
    PyTorchJob.ElasticPolicy elastic = null;
    if (ks.elastic()) {
      // The operator sets no MASTER_ADDR without a Master; point it at worker 0, the rendezvous host.
      int store = RankPorts.of(ks).store();
      List<EnvVar> env = List.of(WorkerEnv.value("MASTER_ADDR", ks.name() + "-worker-0"),
          WorkerEnv.value("MASTER_PORT", store));
      replicas.put("Worker", replica(ks, ks.nodes().max(), restart, env, extraArgs));
      elastic = elasticPolicy(ks, restarts);
    } else {
      replicas.put("Master", replica(ks, 1, restart, List.of(), extraArgs));
      if (ks.nodes().max() > 1) replicas.put("Worker", replica(ks, ks.nodes().max() - 1, restart, List.of(), extraArgs));
    }
    return new PyTorchJob(Labels.jobMeta(ks, ks.name()), new PyTorchJob.Spec(
        new PyTorchJob.RunPolicy(RetryPolicy.CLEAN_POD_POLICY, restarts, null, null),
        elastic, Integer.toString(ks.procsPerNode()), replicas));
  }

  /**
   * No {@code metrics}: with them the operator writes its own HPA spec over ours (release 1.9 {@code ReconcileHPA}),
   * dropping the scale-down behaviour; without them it leaves the HPA to us.
   * c10d: rendezvous on worker 0's TCPStore (the operator's default endpoint); etcd: on the user's etcd named by
   * {@code elastic.rdzvEndpoint}, so that losing any pod, worker 0 included, does not end the run.
   */
  private static PyTorchJob.ElasticPolicy elasticPolicy(K8sSpec ks, int restarts) {
    var e = ks.spec().elastic();
    RendezvousBackend backend = RendezvousBackend.parse(e.rdzvBackend(), "elastic.rdzvBackend");
    if (backend == RendezvousBackend.C10D) {
      return new PyTorchJob.ElasticPolicy(ks.nodes().min(), ks.nodes().max(), backend.flag(), null, RankPorts.of(ks).store(), restarts,
          null);
    }
    if (e.rdzvEndpoint() == null || e.rdzvEndpoint().isBlank()) {
      throw new WeftException("elastic.rdzvBackend=etcd on Kubernetes needs elastic.rdzvEndpoint: your etcd Service's HOST:PORT,"
          + " e.g. weft-etcd:2379 (see docs/kubernetes.md)");
    }
    Endpoint ep = Endpoint.parse(e.rdzvEndpoint(), "elastic.rdzvEndpoint");
    return new PyTorchJob.ElasticPolicy(ks.nodes().min(), ks.nodes().max(), backend.flag(), ep.host(), ep.port(), restarts, null);
  }

  private static PyTorchJob.ReplicaSpec replica(K8sSpec ks, int count, String restartPolicy, List<EnvVar> env,
                                                List<String> extraArgs) {
    return new PyTorchJob.ReplicaSpec(count, restartPolicy, WorkerPod.template(ks, new WorkerPod.Options(
        PyTorchJob.CONTAINER, PyTorchJob.PORT_NAME, env, extraArgs, restartPolicy, null)));
  }
}
