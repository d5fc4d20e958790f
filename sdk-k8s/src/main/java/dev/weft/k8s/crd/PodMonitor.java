package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;

/** Prometheus Operator {@code PodMonitor} ({@code monitoring.coreos.com/v1}). */
public record PodMonitor(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "monitoring.coreos.com/v1";
  public static final String KIND = "PodMonitor";

  public PodMonitor(ObjectMeta metadata, Spec spec) { this(API_VERSION, KIND, metadata, spec); }

  public record Spec(LabelSelector selector, List<Endpoint> podMetricsEndpoints) {}

  public record Endpoint(String port, String path, String interval) {}
}
