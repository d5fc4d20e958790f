package dev.weft.k8s.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.weft.k8s.crd.PodMonitor;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
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

/** The objects every target has beside its job: spec ConfigMap, PDB, NetworkPolicy, PodMonitor, HPA, Service. */
public final class SupportObjects {
  /** Where Gloo and NCCL listen for collective traffic: Linux's default ephemeral port range. */
  public static final int COLLECTIVE_PORT_FIRST = 32768;
  public static final int COLLECTIVE_PORT_LAST = 60999;
  public static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

  private SupportObjects() {}

  public static String specConfigMapName(K8sSpec ks) { return ks.name() + "-spec"; }

  /** The spec the workers read: the user's, with checkpoints under the mounted storage. */
  public static String workerSpecYaml(K8sSpec ks) {
    try {
      ObjectNode tree = (ObjectNode) SpecIO.yamlMapper().readTree(ks.specYaml());
      if (ks.spec().checkpoint().dir().isBlank()) {
        SpecOverrides.set(tree, "checkpoint.dir", TextNode.valueOf(ks.deployment().checkpointStorage().mountPath()));
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

  /** Voluntary evictions may not take the run below its minimum node count. */
  public static Manifest podDisruptionBudget(K8sSpec ks) {
    return Manifest.of(new PodDisruptionBudgetBuilder().withMetadata(Labels.meta(ks, ks.name()))
        .withNewSpec().withMinAvailable(new IntOrString(ks.nodes().min())).withSelector(Labels.podSelector(ks)).endSpec()
        .build());
  }

  /**
   * Ingress only from the run's own pods (rendezvous port and the collective port range) and from the
   * monitoring namespace (metrics ports). Egress is left open (DNS, object stores, registries).
   */
  public static Manifest networkPolicy(K8sSpec ks) {
    List<NetworkPolicyPort> jobPorts = new ArrayList<>();
    jobPorts.add(tcp(ks.deployment().port()));
    jobPorts.add(new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(COLLECTIVE_PORT_FIRST))
        .withEndPort(COLLECTIVE_PORT_LAST).build());
    List<NetworkPolicyPort> metricsPorts = new ArrayList<>();
    for (int r = 0; r < ks.procsPerNode(); r++) metricsPorts.add(tcp(ks.metricsPort() + r));
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
    for (int r = 0; r < ks.procsPerNode(); r++) {
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

  /** Scales the job object's worker count between the node range's bounds through its scale subresource. */
  public static Manifest horizontalPodAutoscaler(K8sSpec ks, String apiVersion, String kind) {
    return Manifest.of(new HorizontalPodAutoscalerBuilder().withMetadata(Labels.meta(ks, ks.name()))
        .withNewSpec()
        .withScaleTargetRef(new CrossVersionObjectReference(apiVersion, kind, ks.name()))
        .withMinReplicas(ks.nodes().min()).withMaxReplicas(ks.nodes().max())
        .withMetrics(autoscaleMetrics(ks))
        .endSpec().build());
  }

  /** A headless Service giving each pod of the run a stable DNS name (needed by the plain Indexed Job). */
  public static Manifest headlessService(K8sSpec ks, String portName) {
    ServicePort port = new ServicePortBuilder().withName(portName).withPort(ks.deployment().port())
        .withTargetPort(new IntOrString(ks.deployment().port())).withProtocol("TCP").build();
    return Manifest.of(new ServiceBuilder().withMetadata(Labels.meta(ks, ks.name()))
        .withNewSpec().withClusterIP("None").withPublishNotReadyAddresses(true)
        .withSelector(Labels.selector(ks)).withPorts(port).endSpec().build());
  }
}
