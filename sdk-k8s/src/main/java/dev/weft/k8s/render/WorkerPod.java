package dev.weft.k8s.render;

import dev.weft.k8s.spec.K8sDeployment;
import dev.weft.k8s.spec.K8sSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The worker pod every target runs: {@code weft worker --spec /etc/weft/spec.yaml --run-dir /tmp/run}
 * (the image's launcher, dist/), the spec from the
 * ConfigMap, checkpoint storage, {@code /dev/shm} in memory, writable scratch under a read-only root,
 * non-root with no capabilities, and the deployment's scheduling constraints.
 */
public final class WorkerPod {
  public static final String SPEC_DIR = "/etc/weft";
  public static final String SPEC_FILE = SPEC_DIR + "/spec.yaml";
  public static final String SCRATCH_PATH = "/tmp";
  /** Rank 0's run directory: on the scratch volume, the root file system being read-only. */
  public static final String RUN_DIR = SCRATCH_PATH + "/run";
  public static final long USER_ID = 1000;
  public static final String GPU_RESOURCE = "nvidia.com/gpu";

  /**
   * How one target wants its worker container.
   *
   * @param containerName the name the target's operator expects
   * @param portName the name of the rendezvous/master container port
   * @param env the target's rendezvous env (before the common env)
   * @param extraArgs appended to {@code weft worker --spec ...} (e.g. Katib's {@code --set} per trial)
   * @param restartPolicy the pod's restart policy
   * @param subdomain the headless Service the pod joins for DNS (Indexed Job only), or null
   */
  public record Options(String containerName, String portName, List<EnvVar> env, List<String> extraArgs,
                        String restartPolicy, String subdomain) {}

  private WorkerPod() {}

  public static PodTemplateSpec template(K8sSpec ks, Options o) {
    K8sDeployment d = ks.deployment();
    List<EnvVar> env = new ArrayList<>(o.env());
    env.addAll(WorkerEnv.common(ks));
    List<String> args = new ArrayList<>(List.of("worker", "--spec", SPEC_FILE, "--run-dir", RUN_DIR));
    args.addAll(o.extraArgs());
    Container c = new ContainerBuilder()
        .withName(o.containerName())
        .withImage(d.image())
        .withCommand("weft")
        .withArgs(args)
        .withEnv(env)
        .withPorts(ports(ks, o.portName()))
        .withResources(resources(d, usesGpus(ks) ? d.gpusPerNode() : 0))
        .withVolumeMounts(mounts(d))
        .withSecurityContext(new SecurityContextBuilder()
            .withRunAsNonRoot(true)
            .withAllowPrivilegeEscalation(false)
            .withPrivileged(false)
            .withReadOnlyRootFilesystem(true)
            .withNewCapabilities().withDrop("ALL").endCapabilities()
            .build())
        .build();
    PodSpecBuilder spec = new PodSpecBuilder()
        .withContainers(c)
        .withVolumes(volumes(ks))
        .withRestartPolicy(o.restartPolicy())
        .withTerminationGracePeriodSeconds((long) d.terminationGraceSeconds())
        .withSubdomain(o.subdomain())
        .withAutomountServiceAccountToken(false)
        .withEnableServiceLinks(false)
        .withSecurityContext(new PodSecurityContextBuilder()
            .withRunAsNonRoot(true).withRunAsUser(USER_ID).withRunAsGroup(USER_ID).withFsGroup(USER_ID)
            .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
            .build())
        .withNodeSelector(d.nodeSelector().isEmpty() ? null : new LinkedHashMap<>(new java.util.TreeMap<>(d.nodeSelector())))
        .withAffinity(d.affinity())
        .withTolerations(d.tolerations().isEmpty() ? null : d.tolerations())
        .withPriorityClassName(blankToNull(d.priorityClass()))
        .withServiceAccountName(blankToNull(d.serviceAccount()));
    return new PodTemplateSpecBuilder()
        .withNewMetadata().withLabels(Labels.common(ks)).endMetadata()
        .withSpec(spec.build())
        .build();
  }

  /** The store port first, then one metrics port per local rank (see {@link RankPorts}). */
  static List<ContainerPort> ports(K8sSpec ks, String portName) {
    RankPorts p = RankPorts.of(ks);
    List<ContainerPort> ports = new ArrayList<>();
    ports.add(new ContainerPortBuilder().withName(portName).withContainerPort(p.store()).withProtocol("TCP").build());
    for (int r = 0; r < p.metricsCount(); r++) {
      ports.add(new ContainerPortBuilder().withName(metricsPortName(r)).withContainerPort(p.metrics(r))
          .withProtocol("TCP").build());
    }
    return ports;
  }

  public static String metricsPortName(int localRank) { return localRank == 0 ? "metrics" : "metrics-" + localRank; }

  /** GPUs are requested only for a device that uses them: a CPU run would hold them idle. */
  public static boolean usesGpus(K8sSpec ks) {
    String device = ks.spec().device();
    return "cuda".equalsIgnoreCase(device) || "auto".equalsIgnoreCase(device);
  }

  private static ResourceRequirements resources(K8sDeployment d, int gpus) {
    Map<String, Quantity> requests = quantities(d.requests(), gpus);
    Map<String, Quantity> limits = quantities(d.limits(), gpus);
    return new ResourceRequirements(null, limits.isEmpty() ? null : limits, requests.isEmpty() ? null : requests);
  }

  private static Map<String, Quantity> quantities(K8sDeployment.Resources r, int gpus) {
    Map<String, Quantity> m = new LinkedHashMap<>();
    if (r.cpu() != null) m.put("cpu", new Quantity(r.cpu()));
    if (r.memory() != null) m.put("memory", new Quantity(r.memory()));
    if (gpus > 0) m.put(GPU_RESOURCE, new Quantity(Integer.toString(gpus)));
    return m;
  }

  private static List<VolumeMount> mounts(K8sDeployment d) {
    return List.of(
        new VolumeMountBuilder().withName("spec").withMountPath(SPEC_DIR).withReadOnly(true).build(),
        new VolumeMountBuilder().withName("dshm").withMountPath("/dev/shm").build(),
        new VolumeMountBuilder().withName("scratch").withMountPath(SCRATCH_PATH).build(),
        new VolumeMountBuilder().withName("checkpoints").withMountPath(d.checkpointStorage().mountPath()).build());
  }

  private static List<Volume> volumes(K8sSpec ks) {
    K8sDeployment d = ks.deployment();
    VolumeBuilder checkpoints = new VolumeBuilder().withName("checkpoints");
    if (d.checkpointStorage().usesPvc()) {
      checkpoints.withNewPersistentVolumeClaim().withClaimName(d.checkpointStorage().claimName(ks.name()))
          .endPersistentVolumeClaim();
    } else {
      checkpoints.withNewEmptyDir().endEmptyDir(); // staging area; the object store (if any) is the durable copy
    }
    return List.of(
        new VolumeBuilder().withName("spec").withNewConfigMap().withName(SupportObjects.specConfigMapName(ks))
            .endConfigMap().build(),
        new VolumeBuilder().withName("dshm").withNewEmptyDir().withMedium("Memory")
            .withSizeLimit(new Quantity(d.shmSize())).endEmptyDir().build(),
        new VolumeBuilder().withName("scratch").withNewEmptyDir().endEmptyDir().build(),
        checkpoints.build());
  }

  private static String blankToNull(String s) { return s == null || s.isBlank() ? null : s; }
}
