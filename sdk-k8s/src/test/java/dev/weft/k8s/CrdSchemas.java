package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.weft.k8s.yaml.Yaml;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Validates custom resources against the upstream CRDs' {@code openAPIV3Schema}, turned into strict JSON
 * Schema: every object schema that lists properties refuses unknown ones (unless the CRD says
 * x-kubernetes-preserve-unknown-fields), int-or-string and nullable are spelt out. CEL rules are not checked.
 */
public final class CrdSchemas {
  private static final Map<String, JsonSchema> CACHE = new HashMap<>();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private CrdSchemas() {}

  /** The upstream CRD directory: -Dweft.crds.dir or $WEFT_CRDS_DIR; skips (locally) or fails (CI) when absent. */
  public static Path dir() {
    String d = System.getProperty("weft.crds.dir", System.getenv("WEFT_CRDS_DIR"));
    Path p = d == null ? null : Path.of(d);
    boolean present = p != null && Files.isDirectory(p);
    dev.weft.testing.Required.that(present, "upstream CRDs not found at " + p + "; set -Dweft.crds.dir or WEFT_CRDS_DIR to shared/k8s/crds");
    return p;
  }

  public static final String PODMONITOR_FILE = "monitoring.coreos.com_podmonitors.yaml";

  /** All CRD files, every one upstream's (the Prometheus Operator's PodMonitor among them): none is kept in this module. */
  public static List<Path> crdFiles() {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir())) {
      s.filter(f -> f.toString().endsWith(".yaml")).sorted().forEach(files::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(files).as("the upstream PodMonitor CRD in " + dir()).anyMatch(f -> f.getFileName().toString().equals(PODMONITOR_FILE));
    return files;
  }

  public static JsonNode readYaml(Path f) {
    try {
      return Yaml.read(Files.readString(f));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Validation messages for {@code resource} (empty = valid). */
  public static Set<ValidationMessage> validate(JsonNode resource) {
    String apiVersion = resource.path("apiVersion").asText();
    String kind = resource.path("kind").asText();
    JsonSchema schema;
    synchronized (CACHE) {
      schema = CACHE.computeIfAbsent(apiVersion + "/" + kind, k -> load(apiVersion, kind));
    }
    return schema.validate(resource);
  }

  public static void assertValid(JsonNode resource) {
    assertThat(validate(resource)).as("%s %s against its upstream CRD schema", resource.path("kind").asText(),
        resource.path("metadata").path("name").asText()).isEmpty();
  }

  private static JsonSchema load(String apiVersion, String kind) {
    String group = apiVersion.substring(0, apiVersion.indexOf('/'));
    String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
    for (Path f : crdFiles()) {
      if (!declaresKind(f, kind)) continue; // parse only the candidates: the files are megabytes each
      JsonNode crd = readYaml(f);
      if (!crd.path("spec").path("group").asText().equals(group) || !crd.path("spec").path("names").path("kind").asText().equals(kind)) continue;
      for (JsonNode v : crd.path("spec").path("versions")) {
        if (v.path("name").asText().equals(version)) {
          JsonNode strict = strict(v.path("schema").path("openAPIV3Schema"));
          return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(strict);
        }
      }
    }
    throw new AssertionError("no CRD for " + apiVersion + " " + kind + " in " + dir());
  }

  private static boolean declaresKind(Path f, String kind) {
    try {
      return Files.readString(f).contains("kind: " + kind + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** OpenAPI v3 (Kubernetes structural schema) → strict JSON Schema draft 4. */
  static JsonNode strict(JsonNode schema) {
    if (!(schema instanceof ObjectNode in)) return schema;
    ObjectNode out = F.objectNode();
    boolean preserve = in.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    for (Iterator<Map.Entry<String, JsonNode>> it = in.fields(); it.hasNext(); ) {
      var e = it.next();
      String k = e.getKey();
      if (k.startsWith("x-kubernetes-") || k.equals("description") || k.equals("nullable") || k.equals("default")) continue;
      JsonNode v = e.getValue();
      switch (k) {
        case "properties" -> {
          ObjectNode props = F.objectNode();
          v.fields().forEachRemaining(p -> props.set(p.getKey(), strict(p.getValue())));
          out.set(k, props);
        }
        case "items", "additionalProperties", "not" -> out.set(k, v.isObject() ? strict(v) : v);
        case "allOf", "anyOf", "oneOf" -> {
          ArrayNode arr = F.arrayNode();
          v.forEach(x -> arr.add(strict(x)));
          out.set(k, arr);
        }
        default -> out.set(k, v);
      }
    }
    if (in.path("x-kubernetes-int-or-string").asBoolean(false)) {
      out.remove("type");
      ArrayNode any = F.arrayNode();
      any.add(F.objectNode().put("type", "integer"));
      any.add(F.objectNode().put("type", "string"));
      out.set("anyOf", any);
    }
    if (in.path("nullable").asBoolean(false) && out.has("type")) {
      ArrayNode types = F.arrayNode().add(out.get("type").asText()).add("null");
      out.set("type", types);
    }
    if (in.has("properties") && !in.has("additionalProperties") && !preserve) out.put("additionalProperties", false);
    return out;
  }
}
