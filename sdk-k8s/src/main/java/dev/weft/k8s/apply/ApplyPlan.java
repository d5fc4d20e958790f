package dev.weft.k8s.apply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.compat.ApiCompat;
import dev.weft.k8s.render.Labels;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.yaml.Manifest;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What of a render one cluster takes, decided from discovery before anything is sent: every object down-converted
 * for the server, the optional ones whose API it does not serve left out with one line each (PodMonitor without the
 * Prometheus Operator, HPA without autoscaling, the Kueue queue label without Kueue). A required object the server
 * cannot take refuses the whole apply. Pure: the served APIs come in as a {@link Served}.
 */
public record ApplyPlan(List<ObjectNode> objects, List<String> skipped) {
  /** Kinds a run works without: monitoring and autoscaling. */
  public static final Set<String> OPTIONAL_KINDS = Set.of("PodMonitor", "HorizontalPodAutoscaler");
  public static final String KUEUE_GROUP = "kueue.x-k8s.io";

  public ApplyPlan {
    objects = List.copyOf(objects);
    skipped = List.copyOf(skipped);
  }

  /** What the server serves (discovery). */
  public interface Served {
    boolean kind(String apiVersion, String kind);

    boolean group(String group);
  }

  public static ApplyPlan of(Rendered r, ApiCompat compat, Served served) {
    List<ObjectNode> objects = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (Manifest m : r.manifests()) {
      String why = compat.unsupported(m);
      if (why != null) throw new KubernetesClientException(id(m) + " cannot run here: " + why);
      ObjectNode tree = compat.convert(m);
      String apiVersion = tree.path("apiVersion").asText();
      if (!served.kind(apiVersion, m.kind())) {
        if (!OPTIONAL_KINDS.contains(m.kind())) {
          throw new KubernetesClientException(id(m) + " cannot run here: the cluster does not serve " + apiVersion + " "
              + m.kind() + "; install its operator/CRD or choose another --target (nothing was applied)");
        }
        skipped.add(id(m) + ": the cluster does not serve " + apiVersion + " " + m.kind() + "; " + withoutIt(m.kind()));
        continue;
      }
      JsonNode labels = tree.path("metadata").path("labels");
      if (labels.has(Labels.KUEUE_QUEUE) && !served.group(KUEUE_GROUP)) {
        skipped.add("label " + Labels.KUEUE_QUEUE + "=" + labels.path(Labels.KUEUE_QUEUE).asText() + " on " + id(m)
            + ": the cluster does not serve " + KUEUE_GROUP + " (Kueue); the job is admitted without a queue");
        ((ObjectNode) labels).remove(Labels.KUEUE_QUEUE);
      }
      objects.add(tree);
    }
    return new ApplyPlan(objects, skipped);
  }

  private static String withoutIt(String kind) {
    return kind.equals("PodMonitor") ? "metrics are still served on the pods' metrics ports, but nothing scrapes them"
        : "the run keeps its node count (no autoscaling)";
  }

  static String id(Manifest m) { return m.kind() + "/" + m.name(); }

  static String id(JsonNode tree) { return tree.path("kind").asText() + "/" + tree.path("metadata").path("name").asText(); }
}
