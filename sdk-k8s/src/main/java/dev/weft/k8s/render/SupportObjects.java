package dev.weft.k8s.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.weft.k8s.crd.PodMonitor;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrackingSpec;
import dev.weft.spec.SpecOverrides;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.CrossVersionObjectReference;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerBuilder;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpec;
import io.fabric8.kubernetes.api.model.autoscaling.v2.MetricSpecBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The objects a target has beside its job: spec ConfigMap, NetworkPolicy, PodMonitor; PDB and HPA (elastic); Service. */
public final class SupportObjects {
  public static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

  private SupportObjects() {}

  public static String specConfigMapName(K8sSpec ks) { return ks.name() + "-spec"; }

  /**
   * The spec the workers read: the user's, with checkpoints in the durable storage when checkpoint.dir is
   * empty (the object store's uri, else the mounted claim or staging directory), and TensorBoard's event files beside
   * them ({@code CHECKPOINT_DIR/tensorboard}, on the claim or copied to the object store) when tracking.tensorboard is
   * left to its default, so that they outlive the pod.
   */
  public static String workerSpecYaml(K8sSpec ks) { return workerSpecYaml(ks, null); }

  /**
   * As {@link #workerSpecYaml(K8sSpec)}; {@code durableDir} (a Trainer runtime's workspace claim, or null) takes the
   * event files when no checkpoint storage outlives the pod ({@code checkpoint.every: 0} and none named).
   */
  public static String workerSpecYaml(K8sSpec ks, String durableDir) {
    try {
      ObjectNode tree = (ObjectNode) SpecIO.yamlMapper().readTree(ks.specYaml());
      var storage = ks.deployment().checkpointStorage();
      String checkpoints = ks.spec().checkpoint().dir();
      if (checkpoints.isBlank()) {
        checkpoints = storage.usesObjectStore() ? storage.uri() : storage.mountPath();
        SpecOverrides.set(tree, "checkpoint.dir", TextNode.valueOf(checkpoints));
      }
      String durable = storage.usesPvc() || storage.usesObjectStore() ? checkpoints : durableDir;
      if (ks.spec().tracking().tensorboard().isBlank() && durable != null) {
        SpecOverrides.set(tree, "tracking.tensorboard", TextNode.valueOf(durable.replaceAll("/+$", "") + "/" + TrackingSpec.DEFAULT_DIR));
      }
      return SpecIO.yamlMapper().writeValueAsString(tree);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Manifest specConfigMap(K8sSpec ks) {
    return Manifest.of(new ConfigMapBuilder().withMetadata(Labels.meta(ks, specConfigMapName(ks)))
        .withData(Map.of("spec.yaml", workerSpecYaml(ks))).build());
  }

  /**
   * The checkpoint claim Weft renders when {@code checkpointStorage.size} is set. Not labelled as part of the
   * run's objects, so {@code weft k8s delete} leaves it (and the checkpoints) for the next run to resume from.
   */
  public static Manifest checkpointClaim(K8sSpec ks) {
    var c = ks.deployment().checkpointStorage();
    ObjectMeta meta = new ObjectMetaBuilder().withName(c.claimName(ks.name())).withNamespace(ks.namespace())
        .addToLabels("app.kubernetes.io/name", "weft").addToLabels("app.kubernetes.io/managed-by", "weft").build();
    return Manifest.of(new PersistentVolumeClaimBuilder().withMetadata(meta).withNewSpec()
        .withAccessModes(c.accessMode())
        .withStorageClassName(c.storageClass() == null || c.storageClass().isBlank() ? null : c.storageClass())
        .withNewResources().addToRequests("storage", new Quantity(c.size())).endResources()
        .endSpec().build());
  }

  /**
   * Elastic runs only: one pod at a time may be evicted (drains, upgrades, the autoscaler); it saves on SIGTERM and
   * the others re-form without it. maxUnavailable counts against the scale of the pods' controller, which a
   * PyTorchJob has (its scale subresource); a fixed run gets none, see {@link #NO_PDB_COMMENT}.
   */
  public static Manifest podDisruptionBudget(K8sSpec ks) {
    return Manifest.of(new PodDisruptionBudgetBuilder().withMetadata(Labels.meta(ks, ks.name()))
        .withNewSpec().withMaxUnavailable(new IntOrString(1)).withSelector(Labels.podSelector(ks)).endSpec()
        .build());
  }

  /** Written above a fixed run's job object: why it has no PodDisruptionBudget. */
  public static final String NO_PDB_COMMENT = """
      No PodDisruptionBudget: a fixed-size run stops as a whole when any of its pods goes, and every pod saves an
      emergency checkpoint on SIGTERM (within terminationGracePeriodSeconds) that the retried run resumes from.
      A budget could only block node drains, upgrades and the autoscaler (minAvailable = all pods allows 0
      disruptions), and maxUnavailable needs a controller with a scale subresource, which Jobs do not have.""";

  /**
   * Ingress only from the run's own pods, on every TCP port (Gloo pairs and elastic generations listen on
   * ports the kernel picks, see {@link RankPorts}), and from the monitoring namespace on exactly the
   * metrics ports. Egress is left open (DNS, object stores, registries).
   */
  public static Manifest networkPolicy(K8sSpec ks) {
    RankPorts ports = RankPorts.of(ks);
    List<NetworkPolicyPort> jobPorts = List.of(new NetworkPolicyPortBuilder().withProtocol("TCP").build());
    List<NetworkPolicyPort> metricsPorts = new ArrayList<>();
    for (int port : ports.metricsPorts()) metricsPorts.add(tcp(port));
    return Manifest.of(new NetworkPolicyBuilder().withMetadata(Labels.meta(ks, ks.name()))
        .withNewSpec()
        .withPodSelector(Labels.podSelector(ks))
        .withPolicyTypes("Ingress")
        .addNewIngress().addNewFrom().withPodSelector(Labels.podSelector(ks)).endFrom().withPorts(jobPorts).endIngress()
        .addNewIngress().addNewFrom().withNewNamespaceSelector()
        .addToMatchLabels(NAMESPACE_NAME_LABEL, ks.deployment().monitoringNamespace()).endNamespaceSelector().endFrom()
        .withPorts(metricsPorts).endIngress()
        .endSpec().build());
  }

  private static NetworkPolicyPort tcp(int port) {
    return new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(port)).build();
  }

  public static Manifest podMonitor(K8sSpec ks) {
    List<PodMonitor.Endpoint> endpoints = new ArrayList<>();
    for (int r = 0; r < RankPorts.of(ks).metricsCount(); r++) {
      endpoints.add(new PodMonitor.Endpoint(WorkerPod.metricsPortName(r), "/metrics", "15s"));
    }
    return Manifest.of(new PodMonitor(Labels.meta(ks, ks.name()), new PodMonitor.Spec(Labels.podSelector(ks), endpoints)));
  }

  /** The CPU metric an elastic run scales on (shared by the HPA and PyTorchJob's elasticPolicy). */
  public static List<MetricSpec> autoscaleMetrics(K8sSpec ks) {
    return List.of(new MetricSpecBuilder().withType("Resource").withNewResource().withName("cpu")
        .withNewTarget().withType("Utilization").withAverageUtilization(ks.deployment().autoscaleCpuUtilization())
        .endTarget().endResource().build());
  }

  /** The shortest scale-down stabilisation window: the CPU metric must stay low this long before a pod is removed. */
  public static final int SCALE_DOWN_WINDOW_SECONDS = 600;
  /** The API's upper bounds on an HPA policy's period and on a stabilisation window. */
  static final int MAX_POLICY_PERIOD_SECONDS = 1800;
  static final int MAX_WINDOW_SECONDS = 3600;

  /**
   * Scales the job object's worker count between the node range's bounds through its scale subresource; down by
   * one pod per period (its grace period plus a minute to re-form), after a stabilisation window.
   */
  public static Manifest horizontalPodAutoscaler(K8sSpec ks, String apiVersion, String kind) {
    int grace = ks.deployment().terminationGraceSeconds();
    return Manifest.of(new HorizontalPodAutoscalerBuilder().withMetadata(Labels.meta(ks, ks.name()))
        .withNewSpec()
        .withScaleTargetRef(new CrossVersionObjectReference(apiVersion, kind, ks.name()))
        .withMinReplicas(ks.nodes().min()).withMaxReplicas(ks.nodes().max())
        .withMetrics(autoscaleMetrics(ks))
        .withNewBehavior().withNewScaleDown()
        .withStabilizationWindowSeconds(Math.min(MAX_WINDOW_SECONDS, Math.max(SCALE_DOWN_WINDOW_SECONDS, 2 * grace)))
        .addNewPolicy().withType("Pods").withValue(1).withPeriodSeconds(Math.min(MAX_POLICY_PERIOD_SECONDS, grace + 60)).endPolicy()
        .endScaleDown().endBehavior()
        .endSpec().build());
  }

  /** A headless Service giving each pod of the run a stable DNS name (needed by the plain Indexed Job). */
  public static Manifest headlessService(K8sSpec ks, String portName) {
    int store = RankPorts.of(ks).store();
    ServicePort port = new ServicePortBuilder().withName(portName).withPort(store)
        .withTargetPort(new IntOrString(store)).withProtocol("TCP").build();
    return Manifest.of(new ServiceBuilder().withMetadata(Labels.meta(ks, ks.name()))
        .withNewSpec().withClusterIP("None").withPublishNotReadyAddresses(true)
        .withSelector(Labels.selector(ks)).withPorts(port).endSpec().build());
  }
}
