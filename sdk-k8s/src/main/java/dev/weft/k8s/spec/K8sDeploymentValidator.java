package dev.weft.k8s.spec;

import static dev.weft.spec.SpecValidator.require;

import dev.weft.spec.TrainingSpec;
import java.util.Map;
import java.util.regex.Pattern;

/** Checks the deployment section before anything is rendered; every error names the field and the fix. */
public final class K8sDeploymentValidator {
  /** The image used when {@code deployment.image} is empty (rendering only; override it for real runs). */
  public static final String DEFAULT_IMAGE = "ghcr.io/weft-dev/weft:0.1.0";
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern QUANTITY = Pattern.compile("[+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)?");
  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern URI = Pattern.compile("(s3|gs|az|abfs|hdfs|https?)://.+");

  private K8sDeploymentValidator() {}

  /** Returns {@code d} with the default image filled in, or throws {@link dev.weft.spec.SpecException}. */
  public static K8sDeployment validate(TrainingSpec spec, K8sDeployment d) {
    require(DNS_LABEL.matcher(d.namespace()).matches(), "deployment.namespace",
        "'" + d.namespace() + "' is not a namespace name; use lowercase letters, digits and '-'");
    NodeRange nodes = d.nodeRange();
    require(d.procsPerNode() >= 1, "deployment.procsPerNode", d.procsPerNode() + " must be at least 1");
    require(d.gpusPerNode() >= 0, "deployment.gpusPerNode", d.gpusPerNode() + " must be 0 (CPU) or more");
    require(d.gpusPerNode() == 0 || d.gpusPerNode() >= d.procsPerNode(), "deployment.gpusPerNode",
        d.gpusPerNode() + " GPUs cannot serve " + d.procsPerNode() + " processes per node; set gpusPerNode >= procsPerNode");
    if (!nodes.elastic()) {
      int procs = nodes.min() * d.procsPerNode();
      require(procs == spec.worldSize(), "deployment.nodes", nodes.min() + " nodes × " + d.procsPerNode()
          + " procsPerNode = " + procs + " processes, but dp × tp × pp = " + spec.worldSize()
          + "; set deployment.nodes and deployment.procsPerNode so that their product is " + spec.worldSize());
    } else {
      int group = spec.parallel().tp() * spec.parallel().pp();
      require(d.procsPerNode() % group == 0 || group % d.procsPerNode() == 0, "deployment.procsPerNode",
          "elastic runs resize data parallelism only, so tp × pp = " + group
              + " must divide (or be a multiple of) procsPerNode=" + d.procsPerNode());
    }
    quantity(d.requests().cpu(), "deployment.requests.cpu");
    quantity(d.requests().memory(), "deployment.requests.memory");
    quantity(d.limits().cpu(), "deployment.limits.cpu");
    quantity(d.limits().memory(), "deployment.limits.memory");
    quantity(d.shmSize(), "deployment.shmSize");
    for (Map.Entry<String, String> e : d.env().entrySet()) envName(e.getKey(), "deployment.env");
    for (Map.Entry<String, String> e : d.nccl().entrySet()) envName(e.getKey(), "deployment.nccl");
    require(d.port() > 1024 && d.port() < 65536, "deployment.port", d.port() + " must be an unprivileged port (1025-65535)");
    require(d.autoscaleCpuUtilization() > 0 && d.autoscaleCpuUtilization() <= 100, "deployment.autoscaleCpuUtilization",
        d.autoscaleCpuUtilization() + " must be a percentage (1-100)");
    K8sDeployment.CheckpointStorage c = d.checkpointStorage();
    require(!(c.usesPvc() && c.usesObjectStore()), "deployment.checkpointStorage",
        "set either pvc or uri, not both");
    require(!c.usesObjectStore() || URI.matcher(c.uri()).matches(), "deployment.checkpointStorage.uri",
        "'" + c.uri() + "' is not an object-store URI; use s3://bucket/path, gs://bucket/path or similar");
    require(!c.usesObjectStore() || (c.secret() != null && !c.secret().isBlank()), "deployment.checkpointStorage.secret",
        "an object-store uri needs the name of a Secret with its credentials");
    require(c.mountPath() != null && c.mountPath().startsWith("/"), "deployment.checkpointStorage.mountPath",
        "'" + c.mountPath() + "' must be an absolute path");
    if (d.image() == null || d.image().isBlank()) {
      return new K8sDeployment(DEFAULT_IMAGE, d.namespace(), d.nodes(), d.procsPerNode(), d.gpusPerNode(), d.env(),
          d.requests(), d.limits(), d.nodeSelector(), d.affinity(), d.tolerations(), d.priorityClass(), d.queue(),
          d.checkpointStorage(), d.shmSize(), d.nccl(), d.port(), d.serviceAccount(), d.monitoringNamespace(),
          d.autoscaleCpuUtilization());
    }
    return d;
  }

  private static void quantity(String q, String field) {
    require(q == null || QUANTITY.matcher(q).matches(), field,
        "'" + q + "' is not a Kubernetes quantity; write e.g. 2, 500m, 16Gi");
  }

  private static void envName(String name, String field) {
    require(ENV_NAME.matcher(name).matches(), field + "." + name, "is not an environment variable name (letters, digits, '_')");
  }
}
