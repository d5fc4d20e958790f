package dev.weft.k8s.yaml;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

/** Serialises manifests to clean YAML: no nulls, block style, quotes only where YAML needs them. */
public final class Yaml {
  private static final ObjectMapper MAPPER = new ObjectMapper(YAMLFactory.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
      .disable(YAMLGenerator.Feature.SPLIT_LINES)
      .build())
      .setSerializationInclusion(JsonInclude.Include.NON_NULL)
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  private Yaml() {}

  public static ObjectMapper mapper() { return MAPPER; }

  public static String write(Object o) {
    try {
      return MAPPER.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + o.getClass().getSimpleName(), e);
    }
  }

  /** The object as a JSON tree, exactly as it would be written. */
  public static ObjectNode tree(Object o) {
    if (o instanceof ObjectNode n) return n.deepCopy();
    return (ObjectNode) MAPPER.valueToTree(o);
  }

  public static JsonNode read(String yaml) {
    try {
      return MAPPER.readTree(yaml);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not YAML: " + e.getOriginalMessage(), e);
    }
  }
}
