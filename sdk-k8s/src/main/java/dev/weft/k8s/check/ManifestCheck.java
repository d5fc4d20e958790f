package dev.weft.k8s.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The local half of {@code weft k8s render --check}: every pod a render makes, as its controller would create it,
 * against PodSecurity "restricted". For a fixed PyTorchJob that includes the init container training-operator
 * appends to the Workers, from the operator's built-in template or from Weft's compliant replacement.
 */
public final class ManifestCheck {
  /** training-operator's built-in template (no securityContext). */
  public static final String OPERATOR_DEFAULT_INIT = "pytorch-init-container-operator-default.yaml";
  /** Weft's replacement, to configure the operator with (see docs/kubernetes.md). */
  public static final String WEFT_INIT = "pytorch-init-container.yaml";
  /** The operator's default init image (--pytorch-init-container-image). */
  static final String OPERATOR_INIT_IMAGE = "alpine:3.10";

  private ManifestCheck() {}

  /** "Kind/name: where: rule" per violation, with the operator's init container from the template text {@code initTemplate}. */
  public static List<String> restricted(Rendered r, String initTemplate) {
    List<String> out = new ArrayList<>();
    for (Manifest m : r.manifests()) {
      ObjectNode tree = Yaml.tree(m.body());
      if (m.kind().equals("PyTorchJob")) injectInitContainer(tree, initTemplate);
      for (JsonNode spec : podSpecs(tree)) {
        for (String v : RestrictedPodSecurity.violations(spec)) out.add(m.kind() + "/" + m.name() + ": " + v);
      }
    }
    return out;
  }

  /** Every pod spec in an object, wherever its kind nests the template. */
  public static List<JsonNode> podSpecs(JsonNode n) {
    List<JsonNode> out = new ArrayList<>();
    if (n.isObject()) {
      if (n.has("containers") && n.path("containers").isArray()) out.add(n);
      n.elements().forEachRemaining(c -> out.addAll(podSpecs(c)));
    } else if (n.isArray()) {
      n.forEach(c -> out.addAll(podSpecs(c)));
    }
    return out;
  }

  /** As training-operator does (initcontainer.go): only with a Master, appended to the Workers' pods. */
  static void injectInitContainer(ObjectNode job, String template) {
    JsonNode replicas = job.path("spec").path("pytorchReplicaSpecs");
    if (!replicas.has("Master") || !replicas.path("Worker").path("template").path("spec").isObject()) return;
    String master = job.path("metadata").path("name").asText() + "-master-0";
    JsonNode injected = Yaml.read(template.replace("{{.MasterAddr}}", master)
        .replace("{{.InitContainerImage}}", OPERATOR_INIT_IMAGE));
    ObjectNode spec = (ObjectNode) replicas.path("Worker").path("template").path("spec");
    ArrayNode init = spec.has("initContainers") ? (ArrayNode) spec.get("initContainers") : spec.putArray("initContainers");
    injected.forEach(init::add);
  }

  /** One of the init container templates under this package's resources. */
  public static String template(String name) {
    try (InputStream in = ManifestCheck.class.getResourceAsStream(name)) {
      if (in == null) throw new IllegalStateException("missing resource " + name);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
