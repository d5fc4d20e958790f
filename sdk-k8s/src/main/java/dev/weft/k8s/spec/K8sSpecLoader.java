package dev.weft.k8s.spec;

import dev.weft.plan.SpecCheck;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.spec.DeploymentSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecOverrides;
import dev.weft.spec.TrainingSpec;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Reads a spec for the cluster: sdk-api's defaults, then the user's file, then {@code --set} overrides
 * (the same as {@code weft train}), except that an unset {@code deployment.nodes} follows from the
 * mesh. The {@link K8sDeployment} is built from the bound {@link DeploymentSpec}.
 */
public final class K8sSpecLoader {
  private K8sSpecLoader() {}

  public static K8sSpec load(Path file, List<String> overrides) {
    ObjectNode tree = baseTree();
    SpecIO.merge(tree, SpecIO.readTree(file));
    for (String o : overrides) SpecOverrides.apply(tree, o);
    return fromTree(tree);
  }

  public static K8sSpec parse(String yaml, List<String> overrides) {
    ObjectNode tree = baseTree();
    SpecIO.merge(tree, SpecIO.parseTree(yaml, "spec"));
    for (String o : overrides) SpecOverrides.apply(tree, o);
    return fromTree(tree);
  }

  /** sdk-api's defaults without a default node count: it follows from the spec's mesh, see fromTree. */
  static ObjectNode baseTree() {
    ObjectNode tree = SpecIO.defaultsTree();
    ((ObjectNode) tree.get("deployment")).remove("nodes");
    return tree;
  }

  static K8sSpec fromTree(ObjectNode tree) {
    JsonNode deploymentTree = tree.get("deployment");
    if (deploymentTree == null || !deploymentTree.isObject()) {
      throw new SpecException("deployment", "must be a section (image, namespace, nodes, ...)");
    }
    TrainingSpec spec = SpecCheck.validate(SpecIO.bind(tree));
    if (!deploymentTree.hasNonNull("nodes")) {
      // Unset: as many nodes as the mesh needs at procsPerNode processes each (the validator checks the division).
      int perNode = Math.max(1, spec.deployment().procsPerNode());
      ((ObjectNode) deploymentTree).put("nodes", Integer.toString(Math.max(1, (spec.worldSize() + perNode - 1) / perNode)));
      spec = SpecIO.bind(tree);
    }
    K8sDeployment deployment = K8sDeploymentValidator.validate(spec, deployment(spec.deployment()));
    try {
      return new K8sSpec(spec, SpecIO.yamlMapper().writeValueAsString(withoutDefaultNulls(tree, SpecIO.defaultsTree())), deployment);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A copy of {@code tree} without the nulls the defaults hold too (affinity, limits.cpu): it reads back the same. */
  private static ObjectNode withoutDefaultNulls(ObjectNode tree, JsonNode defaults) {
    ObjectNode out = tree.deepCopy();
    for (Iterator<Map.Entry<String, JsonNode>> it = out.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode d = defaults.path(e.getKey());
      if (e.getValue().isNull() && d.isNull()) it.remove();
      else if (e.getValue().isObject() && d.isObject() && !"config".equals(e.getKey())) {
        e.setValue(withoutDefaultNulls((ObjectNode) e.getValue(), d)); // config replaces, it does not merge
      }
    }
    return out;
  }

  /** The typed view of the spec's deployment section: affinity and tolerations as Kubernetes objects. */
  static K8sDeployment deployment(DeploymentSpec d) {
    return new K8sDeployment(d.image(), d.namespace(), d.nodes(), d.procsPerNode(), d.gpusPerNode(), d.env(),
        secretKeys(d.secretEnv()), resources(d.requests()), resources(d.limits()), d.nodeSelector(),
        convert(d.affinity(), new TypeReference<Affinity>() {}, "deployment.affinity"),
        convert(d.tolerations(), new TypeReference<List<Toleration>>() {}, "deployment.tolerations"),
        d.priorityClass(), d.queue(), storage(d.checkpointStorage()), d.shmSize(), d.nccl(), d.port(),
        d.serviceAccount(), d.monitoringNamespace(), d.autoscaleCpuUtilization(), d.terminationGraceSeconds());
  }

  private static K8sDeployment.Resources resources(DeploymentSpec.Resources r) {
    return r == null ? null : new K8sDeployment.Resources(r.cpu(), r.memory());
  }

  private static K8sDeployment.CheckpointStorage storage(DeploymentSpec.CheckpointStorage c) {
    return c == null ? null : new K8sDeployment.CheckpointStorage(c.pvc(), c.size(), c.storageClass(), c.accessMode(),
        c.uri(), c.secret(), c.mountPath());
  }

  /** {@code NAME: secret-name/key} entries as Secret references; one without the '/' is a one-line error. */
  static Map<String, K8sDeployment.SecretKey> secretKeys(Map<String, String> refs) {
    Map<String, K8sDeployment.SecretKey> out = new TreeMap<>();
    refs.forEach((name, ref) -> {
      int slash = ref == null ? -1 : ref.indexOf('/');
      if (slash <= 0 || slash == ref.length() - 1 || ref.indexOf('/', slash + 1) >= 0) {
        throw new SpecException("deployment.secretEnv." + name, "must be SECRET-NAME/KEY (the Secret and the key"
            + " whose value the variable gets), e.g. hf-token/token");
      }
      out.put(name, new K8sDeployment.SecretKey(ref.substring(0, slash), ref.substring(slash + 1)));
    });
    return out;
  }

  private static <T> T convert(Object value, TypeReference<T> type, String field) {
    if (value == null) return null;
    ObjectMapper m = SpecIO.yamlMapper();
    try {
      return m.treeToValue(m.valueToTree(value), m.getTypeFactory().constructType(type));
    } catch (JsonMappingException e) {
      throw new SpecException(field + e.getPath().stream()
          .map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
          .collect(Collectors.joining()), "wrong shape: " + e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      throw new SpecException(field, e.getOriginalMessage());
    }
  }
}
