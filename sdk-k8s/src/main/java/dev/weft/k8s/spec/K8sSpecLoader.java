package dev.weft.k8s.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.spec.DeploymentSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads a spec for the cluster: sdk-api's defaults, then this module's deployment defaults, then the
 * user's file, then {@code --set} overrides (the same as {@code weft train}). The deployment fields
 * that {@link DeploymentSpec} does not know yet are split off before the tree is bound, so the
 * {@link TrainingSpec} the workers read stays valid for sdk-api.
 */
public final class K8sSpecLoader {
  private static final Set<String> CORE_DEPLOYMENT_FIELDS = Arrays.stream(DeploymentSpec.class.getRecordComponents())
      .map(c -> c.getName()).collect(Collectors.toUnmodifiableSet());

  private K8sSpecLoader() {}

  public static K8sSpec load(Path file, List<String> overrides) {
    ObjectNode tree = baseTree();
    SpecIO.merge(tree, readUserTree(file));
    for (String o : overrides) SpecOverrides.apply(tree, o);
    return fromTree(tree);
  }

  public static K8sSpec parse(String yaml, List<String> overrides) {
    ObjectNode tree = baseTree();
    SpecIO.merge(tree, parseTree(yaml, "spec"));
    for (String o : overrides) SpecOverrides.apply(tree, o);
    return fromTree(tree);
  }

  /** sdk-api's defaults with this module's deployment defaults added under {@code deployment}. */
  static ObjectNode baseTree() {
    ObjectNode tree = SpecIO.defaultsTree();
    ObjectNode deployment = (ObjectNode) tree.get("deployment");
    deployment.remove("nodes"); // no default count: it follows from the spec's mesh, see fromTree
    ObjectNode extra = k8sDefaults();
    extra.fieldNames().forEachRemaining(f -> { if (!deployment.has(f)) deployment.set(f, extra.get(f)); });
    return tree;
  }

  static K8sSpec fromTree(ObjectNode tree) {
    JsonNode deploymentTree = tree.get("deployment");
    if (deploymentTree == null || !deploymentTree.isObject()) {
      throw new SpecException("deployment", "must be a section (image, namespace, nodes, ...)");
    }
    ObjectNode core = tree.deepCopy();
    ((ObjectNode) core.get("deployment")).retain(CORE_DEPLOYMENT_FIELDS);
    TrainingSpec spec = SpecValidator.validate(SpecIO.bind(core));
    if (!deploymentTree.hasNonNull("nodes")) {
      // Unset: as many nodes as the mesh needs at procsPerNode processes each (the validator checks the division).
      int perNode = Math.max(1, spec.deployment().procsPerNode());
      String nodes = Integer.toString(Math.max(1, (spec.worldSize() + perNode - 1) / perNode));
      ((ObjectNode) deploymentTree).put("nodes", nodes);
      ((ObjectNode) core.get("deployment")).put("nodes", nodes);
      spec = SpecIO.bind(core);
    }
    K8sDeployment deployment = K8sDeploymentValidator.validate(spec, bindDeployment(deploymentTree));
    try {
      return new K8sSpec(spec, SpecIO.yamlMapper().writeValueAsString(core), deployment);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static K8sDeployment bindDeployment(JsonNode tree) {
    try {
      return SpecIO.yamlMapper().treeToValue(tree, K8sDeployment.class);
    } catch (UnrecognizedPropertyException e) {
      throw new SpecException(path(e), "unknown field; known fields here: " + e.getKnownPropertyIds().stream()
          .map(Object::toString).sorted().collect(Collectors.joining(", ")));
    } catch (JsonMappingException e) {
      throw new SpecException(path(e), "wrong shape: " + e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      throw new SpecException("deployment", e.getOriginalMessage());
    }
  }

  private static String path(JsonMappingException e) {
    return "deployment" + e.getPath().stream()
        .map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining());
  }

  private static ObjectNode k8sDefaults() {
    try (InputStream in = K8sSpecLoader.class.getResourceAsStream("k8s-defaults.yaml")) {
      return (ObjectNode) SpecIO.yamlMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("k8s-defaults.yaml missing from the weft-sdk-k8s jar", e);
    }
  }

  private static JsonNode readUserTree(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new SpecException("spec", "file " + file + " does not exist; pass the path of a YAML or JSON spec");
    }
    try {
      return parseTree(Files.readString(file), file.toString());
    } catch (IOException e) {
      throw new SpecException("spec", "cannot read " + file + ": " + e.getMessage());
    }
  }

  private static JsonNode parseTree(String text, String where) {
    try {
      JsonNode n = SpecIO.yamlMapper().readTree(text);
      if (n == null || n.isMissingNode() || n.isNull()) return SpecIO.yamlMapper().createObjectNode();
      if (!n.isObject()) throw new SpecException("spec", where + " must be a mapping of sections (name, model, parallel, ...)");
      return n;
    } catch (JsonProcessingException e) {
      throw new SpecException("spec", where + " is not valid YAML/JSON: " + e.getOriginalMessage());
    }
  }
}
