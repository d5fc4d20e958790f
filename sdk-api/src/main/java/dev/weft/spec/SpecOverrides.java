package dev.weft.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code --set PATH=VALUE}: sets a dotted path in a spec tree. The value is read as a YAML scalar
 * (or flow collection), so {@code 2} is a number, {@code true} a boolean and {@code bf16} a string.
 */
public final class SpecOverrides {
  private SpecOverrides() {}

  public static void apply(ObjectNode tree, String assignment) {
    int eq = assignment.indexOf('=');
    if (eq <= 0) {
      throw new SpecException("--set", "'" + assignment + "' is not PATH=VALUE (for example parallel.dp=2)");
    }
    set(tree, assignment.substring(0, eq).trim(), parseValue(assignment.substring(eq + 1)));
  }

  public static JsonNode parseValue(String text) {
    if (text.isEmpty()) return JsonNodeFactory.instance.textNode("");
    try {
      JsonNode n = SpecIO.yamlMapper().readTree(text);
      return n == null || n.isMissingNode() ? JsonNodeFactory.instance.nullNode() : n;
    } catch (JsonProcessingException e) {
      return JsonNodeFactory.instance.textNode(text);
    }
  }

  /** Sets {@code path} (dotted) to {@code value}, creating intermediate sections. */
  public static void set(ObjectNode tree, String path, JsonNode value) {
    String[] parts = path.split("\\.", -1);
    for (String p : parts) {
      if (p.isBlank()) throw new SpecException("--set", "'" + path + "' is not a dotted field path (for example parallel.dp)");
    }
    ObjectNode node = tree;
    for (int i = 0; i < parts.length - 1; i++) {
      String p = parts[i];
      JsonNode child = node.get(p);
      if (child == null || !child.isObject()) {
        if (child != null && !child.isNull() && !"precision".equals(p)) {
          throw new SpecException(path, "'" + String.join(".", java.util.Arrays.copyOf(parts, i + 1))
              + "' is a value, not a section");
        }
        JsonNode expanded = child == null ? null : SpecIO.normalize(p, child);
        child = expanded != null && expanded.isObject() ? expanded : JsonNodeFactory.instance.objectNode();
        node.set(p, child);
      }
      node = (ObjectNode) child;
    }
    String last = parts[parts.length - 1];
    JsonNode v = SpecIO.normalize(last, value);
    JsonNode old = node.get(last);
    if (old instanceof ObjectNode o && v.isObject() && !"config".equals(last)) SpecIO.merge(o, v);
    else node.set(last, v);
  }
}
