package dev.weft.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads and writes {@link TrainingSpec}s as YAML or JSON. A spec is handled as a tree first: the
 * user's tree is merged over {@code defaults.yaml}, shorthands are expanded, {@code --set} overrides
 * are applied, and only then is it bound to records, so every path to a spec (file, CLI, DSL) is the
 * same path. Unknown fields are errors that name the field.
 */
public final class SpecIO {
  private static final ObjectMapper YAML = configure(new ObjectMapper(
      YAMLFactory.builder().stringQuotingChecker(new ExactStrings())
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build()));
  private static final ObjectMapper JSON = configure(new ObjectMapper());

  private SpecIO() {}

  private static ObjectMapper configure(ObjectMapper m) {
    return m.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
  }

  /**
   * Quotes a string value whenever its plain form would not read back as the same string: "1", "0x1",
   * "true", "null", "-.inf", ... Typed fields would coerce them back, but free-form trees
   * ({@code model.config}, {@code deployment.affinity}, {@code deployment.tolerations}) would not.
   */
  private static final class ExactStrings extends StringQuotingChecker.Default {
    private static final ObjectMapper PLAIN = new ObjectMapper(new YAMLFactory());

    @Override
    public boolean needToQuoteValue(String value) {
      if (super.needToQuoteValue(value)) return true;
      if (value.isEmpty() || value.chars().anyMatch(c -> c < 0x20)) return true;
      try {
        JsonNode back = PLAIN.readTree("v: " + value);
        return !(back != null && back.size() == 1 && back.get("v") != null && back.get("v").isTextual()
            && back.get("v").textValue().equals(value));
      } catch (JsonProcessingException | RuntimeException e) {
        return true;
      }
    }
  }

  public static ObjectMapper yamlMapper() { return YAML; }
  public static ObjectMapper jsonMapper() { return JSON; }

  /** The default tree; a fresh copy every call. */
  public static ObjectNode defaultsTree() {
    try (InputStream in = SpecIO.class.getResourceAsStream("defaults.yaml")) {
      return (ObjectNode) YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("defaults.yaml missing from the Weft jar", e);
    }
  }

  /** Reads a spec file (YAML or JSON), applies overrides ("path=value"), binds it. Does not validate. */
  public static TrainingSpec read(Path file, List<String> overrides) {
    ObjectNode tree = defaultsTree();
    merge(tree, readTree(file));
    for (String o : overrides) SpecOverrides.apply(tree, o);
    return bind(tree);
  }

  public static TrainingSpec read(Path file) { return read(file, List.of()); }

  public static TrainingSpec parse(String text) {
    ObjectNode tree = defaultsTree();
    merge(tree, parseTree(text, "spec"));
    return bind(tree);
  }

  public static JsonNode readTree(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new SpecException("spec", "file " + file + " does not exist; pass the path of a YAML or JSON spec");
    }
    try {
      long size = Files.size(file);
      if (size > MAX_SPEC_BYTES) throw tooBig(file.toString(), size);
      return parseTree(Files.readString(file), file.toString());
    } catch (IOException e) {
      throw new SpecException("spec", "cannot read " + file + ": " + e.getMessage());
    }
  }

  /** Parses YAML or JSON text into a spec tree (empty text is an empty mapping); {@code where} names it in errors. */
  public static JsonNode parseTree(String text, String where) {
    if (text.length() > MAX_SPEC_BYTES) throw tooBig(where, text.length());
    try {
      JsonNode n = YAML.readTree(text); // YAML is a superset of JSON
      if (n == null || n.isMissingNode() || n.isNull()) return JsonNodeFactory.instance.objectNode();
      if (!n.isObject()) throw new SpecException("spec", where + " must be a mapping of sections (name, model, parallel, train, ...)");
      return n;
    } catch (JsonProcessingException e) {
      String field = fieldAt(e);
      if (field.isEmpty()) throw new SpecException("spec", where + " " + problem(e));
      throw new SpecException(field, "in " + where + ": " + problem(e)); // e.g. lr: .nan, which the YAML reader cannot read as a number
    }
  }

  /**
   * Specs are a few kilobytes; the YAML reader's cost grows faster than the text (a 10 MB line took minutes),
   * so a bigger input is refused before it is parsed.
   */
  public static final int MAX_SPEC_BYTES = 256 * 1024;

  private static SpecException tooBig(String where, long size) {
    return new SpecException("spec", where + " is " + size + " bytes; a spec is at most " + MAX_SPEC_BYTES
        + " bytes (keep data, weights and long lists in files the spec names)");
  }

  /** The dotted field a parse error happened in ("" at the top), from the reader's position. */
  private static String fieldAt(JsonProcessingException e) {
    if (!(e.getProcessor() instanceof com.fasterxml.jackson.core.JsonParser p)) return "";
    String pointer = p.getParsingContext().pathAsPointer().toString();
    return pointer.isEmpty() ? "" : pointer.substring(1).replace('/', '.');
  }

  /** A parse error in words; a repeated key gets its own sentence (YAML would otherwise keep the last silently). */
  private static String problem(JsonProcessingException e) {
    String msg = e.getOriginalMessage();
    java.util.regex.Matcher dup = java.util.regex.Pattern.compile("Duplicate field '([^']*)'").matcher(msg == null ? "" : msg);
    String line = e.getLocation() == null || e.getLocation().getLineNr() < 1 ? "" : " (line " + e.getLocation().getLineNr() + ")";
    if (dup.find()) return "has the key '" + dup.group(1) + "' twice in one mapping" + line + "; keep one";
    java.util.regex.Matcher num = java.util.regex.Pattern.compile("Malformed numeric value '([^']*)'").matcher(msg == null ? "" : msg);
    if (num.find()) return "'" + num.group(1) + "' is not a finite number" + line + "; NaN and infinity are refused";
    return "is not valid YAML/JSON: " + msg;
  }

  /** Deep-merges {@code over} into {@code base}; objects merge, everything else replaces. */
  public static void merge(ObjectNode base, JsonNode over) {
    over.fields().forEachRemaining(e -> {
      JsonNode mine = base.get(e.getKey());
      JsonNode theirs = normalize(e.getKey(), e.getValue());
      if (mine instanceof ObjectNode m && theirs.isObject() && !"config".equals(e.getKey())) merge(m, theirs);
      else base.set(e.getKey(), theirs.deepCopy());
    });
  }

  /** Expands shorthands: {@code precision: bf16} means {@code precision: {dtype: bf16}}. */
  static JsonNode normalize(String key, JsonNode value) {
    if ("precision".equals(key) && value.isTextual()) {
      ObjectNode n = JsonNodeFactory.instance.objectNode();
      n.put("dtype", value.asText());
      n.put("reduceDtype", "fp16".equals(value.asText()) ? "fp32" : value.asText());
      return n;
    }
    return value;
  }

  /** Binds a full tree to records, translating Jackson's errors into ones that name the YAML path. */
  public static TrainingSpec bind(JsonNode tree) {
    SpecNumbers.check(tree, TrainingSpec.class);
    try {
      return YAML.treeToValue(tree, TrainingSpec.class);
    } catch (UnrecognizedPropertyException e) {
      String path = path(e);
      throw new SpecException(path, "unknown field; known fields here: "
          + e.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", ")));
    } catch (InvalidFormatException e) {
      throw new SpecException(path(e), "value '" + e.getValue() + "' is not a valid " + e.getTargetType().getSimpleName());
    } catch (MismatchedInputException e) {
      throw new SpecException(path(e), "expected " + describe(e.getTargetType()) + ": " + e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      throw new SpecException("spec", e.getOriginalMessage());
    }
  }

  private static String describe(Class<?> t) {
    if (t == null) return "another type";
    if (t == int.class || t == long.class || t == Integer.class || t == Long.class) return "a whole number";
    if (t == double.class || t == Double.class) return "a number";
    if (t == boolean.class || t == Boolean.class) return "true or false";
    if (t == String.class) return "a string";
    return "a " + t.getSimpleName() + " section";
  }

  private static String path(JsonMappingException e) {
    return e.getPath().stream()
        .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining(".")).replace(".[", "[");
  }

  public static String toYaml(TrainingSpec spec) {
    try {
      return YAML.writeValueAsString(spec);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String toJson(TrainingSpec spec) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(spec);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static TrainingSpec fromJson(String json) {
    ObjectNode tree = defaultsTree();
    try {
      merge(tree, JSON.readTree(json));
    } catch (JsonProcessingException e) {
      throw new SpecException("spec", "not valid JSON: " + e.getOriginalMessage());
    }
    return bind(tree);
  }

  public static void write(TrainingSpec spec, Path file) { write(spec, file, null); }

  /** As {@link #write(TrainingSpec, Path)}, a YAML file starting with {@code comment} (null: none) as a comment line. */
  public static void write(TrainingSpec spec, Path file, String comment) {
    SpecSecrets.refuse(spec); // whatever path the spec came by, no credential is written down
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      boolean json = file.toString().endsWith(".json");
      Files.writeString(file, json ? toJson(spec) : (comment == null ? "" : "# " + comment + "\n") + toYaml(spec));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write spec to " + file, e);
    }
  }

  /** The spec as a tree (for overrides on an existing spec, e.g. from the DSL). */
  public static ObjectNode toTree(TrainingSpec spec) {
    return (ObjectNode) YAML.valueToTree(spec);
  }
}
