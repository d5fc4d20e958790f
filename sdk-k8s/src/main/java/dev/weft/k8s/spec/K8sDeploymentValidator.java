package dev.weft.k8s.spec;

import static dev.weft.spec.SpecValidator.require;

import dev.weft.spec.TrainingSpec;
import dev.weft.train.grpo.CodeRewards;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Checks the deployment section before anything is rendered; every error names the field and the fix. */
public final class K8sDeploymentValidator {
  /** The image used when {@code deployment.image} is empty (rendering only; override it for real runs). */
  public static final String DEFAULT_IMAGE = "ghcr.io/weft-dev/weft:0.1.0";
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern QUANTITY = Pattern.compile("[+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)?");
  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern URI = Pattern.compile("s3://[a-z0-9][a-z0-9.-]*(/.*)?");
  private static final Pattern SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
  private static final Pattern SECRET_KEY = Pattern.compile("[-._a-zA-Z0-9]+");
  /** The claim rendered when checkpoints are on ({@code checkpoint.every > 0}) and no storage is named. */
  public static final String DEFAULT_CLAIM_SIZE = "20Gi";
  /** SIGTERM → SIGKILL bounds: a step boundary and a save need seconds; an hour is longer than any node drain waits. */
  public static final int MIN_GRACE_SECONDS = 10;
  public static final int MAX_GRACE_SECONDS = 3600;
  /** The access modes a claim may ask for. */
  public static final Set<String> ACCESS_MODES = Set.of("ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod");

  private K8sDeploymentValidator() {}

  /**
   * Returns {@code d} with the defaults filled in (the image; a rendered checkpoint claim when checkpoints are on
   * and nothing durable is named), or throws {@link dev.weft.spec.SpecException}.
   */
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
    secretEnv(d);
    for (Map.Entry<String, String> e : d.nccl().entrySet()) envName(e.getKey(), "deployment.nccl");
    require(d.port() > 1024 && d.port() < 65536, "deployment.port", d.port() + " must be an unprivileged port (1025-65535)");
    require(d.autoscaleCpuUtilization() > 0 && d.autoscaleCpuUtilization() <= 100, "deployment.autoscaleCpuUtilization",
        d.autoscaleCpuUtilization() + " must be a percentage (1-100)");
    require(d.terminationGraceSeconds() >= MIN_GRACE_SECONDS && d.terminationGraceSeconds() <= MAX_GRACE_SECONDS,
        "deployment.terminationGraceSeconds", d.terminationGraceSeconds() + " must be " + MIN_GRACE_SECONDS + "-"
            + MAX_GRACE_SECONDS + " seconds: the time between SIGTERM and SIGKILL in which a pod saves its emergency checkpoint");
    K8sDeployment.CheckpointStorage storage = d.checkpointStorage();
    if (spec.checkpoint().every() > 0 && storage.unset() && !spec.checkpoint().dir().startsWith("s3://")) {
      // A retried pod resumes from the latest checkpoint only if it outlives the pod: a claim, not an emptyDir.
      storage = storage.renderedClaim(DEFAULT_CLAIM_SIZE);
    }
    K8sDeployment out = d.with(d.image() == null || d.image().isBlank() ? DEFAULT_IMAGE : d.image(), storage);
    checkpointStorage(spec, out);
    rewardsTravel(spec);
    return out;
  }

  /** A DSL reward ({@code .reward(fn)}) is an object in the submitting JVM: the pods find rewards by class name. */
  private static void rewardsTravel(TrainingSpec spec) {
    if (!spec.train().grpoObjective()) return;
    var rewards = spec.train().grpo().rewards();
    for (int i = 0; i < rewards.size(); i++) {
      String name = rewards.get(i).name();
      require(name == null || !name.startsWith(CodeRewards.PREFIX), "train.grpo.rewards[" + i + "]", "'" + name
          + "' is a Java object in this JVM, which the cluster's pods cannot reach; name a built-in or a RewardFunction class name"
          + " on the image's class path");
    }
  }

  /** Names are variable names not also in deployment.env; each value names a Secret and a key in it. */
  private static void secretEnv(K8sDeployment d) {
    d.secretEnv().forEach((name, ref) -> {
      envName(name, "deployment.secretEnv");
      require(!d.env().containsKey(name), "deployment.env." + name, "is also in deployment.secretEnv; keep it in one of them");
      require(SUBDOMAIN.matcher(ref.secret()).matches(), "deployment.secretEnv." + name,
          "'" + ref.secret() + "' is not a Secret name; use lowercase letters, digits, '-' and '.'");
      require(SECRET_KEY.matcher(ref.key()).matches(), "deployment.secretEnv." + name,
          "'" + ref.key() + "' is not a Secret key; use letters, digits, '-', '_' and '.'");
    });
  }

  /**
   * A claim (referenced or rendered) or an object store, not both; a rendered claim's size and access mode;
   * and checkpoints that stay inside the durable storage.
   */
  private static void checkpointStorage(TrainingSpec spec, K8sDeployment d) {
    K8sDeployment.CheckpointStorage c = d.checkpointStorage();
    require(!(c.usesPvc() && c.usesObjectStore()), "deployment.checkpointStorage", "set either pvc (or size) or uri, not both");
    require(!c.usesObjectStore() || URI.matcher(c.uri()).matches(), "deployment.checkpointStorage.uri",
        "'" + c.uri() + "' is not an S3 URI; write s3://bucket/prefix");
    require(!c.usesObjectStore() || (c.secret() != null && SUBDOMAIN.matcher(c.secret()).matches()),
        "deployment.checkpointStorage.secret", "an object-store uri needs the name of a Secret holding its AWS_* keys");
    require(c.mountPath() != null && c.mountPath().startsWith("/"), "deployment.checkpointStorage.mountPath",
        "'" + c.mountPath() + "' must be an absolute path");
    require(c.pvc() == null || c.pvc().isBlank() || SUBDOMAIN.matcher(c.pvc()).matches(), "deployment.checkpointStorage.pvc",
        "'" + c.pvc() + "' is not a claim name; use lowercase letters, digits, '-' and '.'");
    if (c.rendersClaim()) {
      quantity(c.size(), "deployment.checkpointStorage.size");
      require(ACCESS_MODES.contains(c.accessMode()), "deployment.checkpointStorage.accessMode",
          "'" + c.accessMode() + "' is not an access mode; use ReadWriteMany (every pod mounts it)");
    }
    require(!c.usesPvc() || d.nodeRange().max() == 1 || "ReadWriteMany".equals(c.accessMode()),
        "deployment.checkpointStorage.accessMode", c.accessMode() + " mounts the claim on one node, but "
            + d.nodeRange().max() + " pods write their shards into it; use ReadWriteMany");
    String dir = spec.checkpoint().dir();
    boolean durable = c.usesPvc() || c.usesObjectStore();
    require(!durable || dir.isBlank() || dir.startsWith("s3://") || under(dir, c.mountPath()), "checkpoint.dir",
        "'" + dir + "' is outside deployment.checkpointStorage.mountPath " + c.mountPath()
            + ", so its checkpoints die with the pod; leave checkpoint.dir empty or put it under " + c.mountPath());
  }

  private static boolean under(String dir, String mount) {
    Path d = Path.of(dir).normalize();
    return d.isAbsolute() && d.startsWith(Path.of(mount).normalize());
  }

  private static void quantity(String q, String field) {
    require(q == null || QUANTITY.matcher(q).matches(), field,
        "'" + q + "' is not a Kubernetes quantity; write e.g. 2, 500m, 16Gi");
  }

  private static void envName(String name, String field) {
    require(ENV_NAME.matcher(name).matches(), field + "." + name, "is not an environment variable name (letters, digits, '_')");
  }
}
