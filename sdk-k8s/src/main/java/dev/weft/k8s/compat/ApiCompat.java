package dev.weft.k8s.compat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import java.util.Iterator;
import java.util.Map;

/**
 * Down-converts rendered objects for an older API server. We render for current Kubernetes
 * (autoscaling/v2, policy/v1, NetworkPolicy {@code endPort}); a server older than the version that made
 * those GA gets the previous version of the same object:
 * <ul>
 *   <li>HorizontalPodAutoscaler {@code autoscaling/v2} → {@code autoscaling/v2beta2} below 1.23 (same fields);</li>
 *   <li>PodDisruptionBudget {@code policy/v1} → {@code policy/v1beta1} below 1.21 (same fields);</li>
 *   <li>an Indexed Job's {@code podFailurePolicy} (on by default from 1.26) is dropped below 1.26: every failure then
 *       counts against backoffLimit, exit 2 and 3 included;</li>
 *   <li>NetworkPolicy port ranges ({@code endPort}, 1.22+) → the rule admits every port from the same peers
 *       below 1.22, since a server that drops {@code endPort} would admit just the first port of the range.</li>
 * </ul>
 */
public record ApiCompat(int minor) {
  /** No conversion (current servers). */
  public static final ApiCompat CURRENT = new ApiCompat(Integer.MAX_VALUE);

  public ObjectNode convert(Manifest m) {
    ObjectNode tree = Yaml.tree(m.body());
    if (m.kind().equals("HorizontalPodAutoscaler") && m.apiVersion().equals("autoscaling/v2") && minor < 23) {
      tree.put("apiVersion", "autoscaling/v2beta2");
    }
    if (m.kind().equals("PodDisruptionBudget") && m.apiVersion().equals("policy/v1") && minor < 21) {
      tree.put("apiVersion", "policy/v1beta1");
    }
    if (m.kind().equals("Job") && minor < 26 && tree.path("spec").has("podFailurePolicy")) {
      ((ObjectNode) tree.get("spec")).remove("podFailurePolicy"); // unknown (or gated off) there: every failure then counts
    }
    if (m.kind().equals("NetworkPolicy") && minor < 22) {
      for (JsonNode rule : tree.path("spec").path("ingress")) {
        boolean ranged = false;
        for (JsonNode p : rule.path("ports")) ranged |= p.has("endPort");
        if (ranged) ((ObjectNode) rule).remove("ports");
      }
    }
    return tree;
  }

  /**
   * What cannot be converted, named with the way out: an Indexed Job (Kubernetes 1.22+, where its
   * completion index, the workers' node rank, exists). Returns null when the server can run {@code m}.
   */
  public String unsupported(Manifest m) {
    if (m.kind().equals("Job") && minor < 22 && "Indexed".equals(Yaml.tree(m.body()).path("spec").path("completionMode").asText())) {
      return "--target job needs Indexed Jobs (Kubernetes 1.22 or later) and this server is 1." + minor
          + "; use --target jobset or pytorchjob, or a newer cluster";
    }
    return null;
  }

  /** The apiVersion this server serves {@code m} under (for reading back and deleting). */
  public String apiVersion(Manifest m) { return convert(m).get("apiVersion").asText(); }

  /**
   * A CRD made acceptable to a 1.20 server: CEL rules ({@code x-kubernetes-validations}, 1.25+) and
   * {@code default: ""} on strings (refused by 1.20's structural-schema check) are removed; a list-map key
   * that loses its default becomes required, as 1.20 demands. The result
   * validates less than upstream; the JSON-Schema tests check the full upstream schemas.
   */
  public static ObjectNode crdFor120(JsonNode crd) {
    ObjectNode copy = crd.deepCopy();
    strip(copy);
    return copy;
  }

  private static void strip(JsonNode n) {
    if (n instanceof ObjectNode o) {
      o.remove("x-kubernetes-validations");
      requireDefaultedListMapKeys(o);
      JsonNode def = o.get("default");
      if (def != null && def.isTextual() && def.asText().isEmpty()) o.remove("default");
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) strip(it.next().getValue());
    } else if (n instanceof ArrayNode a) {
      a.forEach(ApiCompat::strip);
    }
  }

  /** A list-map key must have a default or be required: when its {@code default: ""} goes, it becomes required. */
  private static void requireDefaultedListMapKeys(ObjectNode array) {
    JsonNode items = array.path("items");
    if (!array.has("x-kubernetes-list-map-keys") || !(items instanceof ObjectNode it)) return;
    for (JsonNode key : array.get("x-kubernetes-list-map-keys")) {
      JsonNode def = items.path("properties").path(key.asText()).path("default");
      if (!def.isTextual() || !def.asText().isEmpty()) continue;
      ArrayNode required = it.has("required") ? (ArrayNode) it.get("required") : it.putArray("required");
      boolean present = false;
      for (JsonNode r : required) present |= r.asText().equals(key.asText());
      if (!present) required.add(key.asText());
    }
  }
}
