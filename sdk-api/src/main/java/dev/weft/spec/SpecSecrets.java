package dev.weft.spec;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Refuses a spec that holds a credential in any field: a spec is copied into {@code RUN_DIR/spec.yaml}, every
 * checkpoint's {@code manifest.json}, the Kubernetes ConfigMap and Job, so a credential belongs in a Secret
 * ({@code deployment.secretEnv}) and the spec names only where it is. Values are judged by their shape
 * ({@link Credentials#inValue}); the entries of environment maps by their names too. The error names the field
 * and never repeats the value. Pure.
 */
public final class SpecSecrets {
  /** Maps of environment variables: their entries' names count too. */
  private static final Set<String> ENV_MAPS = Set.of("deployment.env", "deployment.nccl");
  /** References to Secrets ({@code NAME: secret-name/key}), never values. */
  private static final Set<String> REFERENCES = Set.of("deployment.secretEnv");

  private SpecSecrets() {}

  /** Throws a {@link SpecException} for the first field of {@code spec} that looks like a credential. */
  public static void refuse(TrainingSpec spec) { refuse(SpecIO.toTree(spec), ""); }

  static void refuse(JsonNode node, String path) {
    if (REFERENCES.contains(path)) return;
    if (node.isTextual()) {
      Optional<String> why = Credentials.inValue(node.asText());
      if (why.isPresent()) throw refused(path, why.get(), "NAME");
    } else if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String field = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
        if (ENV_MAPS.contains(path) && !e.getValue().isNull()) {
          Optional<String> why = Credentials.why(e.getKey(), e.getValue().asText());
          if (why.isPresent()) throw refused(field, why.get(), e.getKey());
        }
        refuse(e.getValue(), field);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) refuse(node.get(i), path + "[" + i + "]");
    }
  }

  private static SpecException refused(String field, String why, String envName) {
    return new SpecException(field, why + " (value not shown), and a value here is written into spec.yaml, every checkpoint's"
        + " manifest.json and the ConfigMap; put it in a Secret and set deployment.secretEnv." + envName
        + "=SECRET-NAME/KEY instead (docs/security.md)");
  }
}
