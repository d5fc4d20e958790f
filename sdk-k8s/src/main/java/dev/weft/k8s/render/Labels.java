package dev.weft.k8s.render;

import dev.weft.k8s.spec.K8sSpec;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/** The labels every object of one run carries, and the selector that finds its pods. */
public final class Labels {
  public static final String JOB = "weft.dev/job";
  public static final String KUEUE_QUEUE = "kueue.x-k8s.io/queue-name";

  private Labels() {}

  /** Selects the run's worker pods (also used by the PDB, NetworkPolicy and PodMonitor). */
  public static Map<String, String> selector(K8sSpec ks) {
    return Map.of("app.kubernetes.io/name", "weft", JOB, ks.name());
  }

  public static LabelSelector podSelector(K8sSpec ks) {
    return new LabelSelectorBuilder().withMatchLabels(new LinkedHashMap<>(sorted(selector(ks)))).build();
  }

  public static Map<String, String> common(K8sSpec ks) {
    Map<String, String> m = new LinkedHashMap<>(sorted(selector(ks)));
    m.put("app.kubernetes.io/instance", ks.name());
    m.put("app.kubernetes.io/managed-by", "weft");
    return m;
  }

  /** Metadata for an object named {@code name} in the run's namespace. */
  public static ObjectMeta meta(K8sSpec ks, String name) {
    return new ObjectMetaBuilder().withName(name).withNamespace(ks.namespace()).withLabels(common(ks)).build();
  }

  /** Metadata for the run's top-level job object: also the Kueue queue when one is set. */
  public static ObjectMeta jobMeta(K8sSpec ks, String name) {
    ObjectMeta m = meta(ks, name);
    String queue = ks.deployment().queue();
    if (queue != null && !queue.isBlank()) m.getLabels().put(KUEUE_QUEUE, queue);
    return m;
  }

  private static Map<String, String> sorted(Map<String, String> m) { return new java.util.TreeMap<>(m); }
}
