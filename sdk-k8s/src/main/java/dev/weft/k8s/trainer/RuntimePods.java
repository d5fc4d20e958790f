package dev.weft.k8s.trainer;

import dev.weft.k8s.crd.TrainingRuntime;
import dev.weft.k8s.render.RetryPolicy;
import dev.weft.k8s.render.SupportObjects;
import dev.weft.k8s.render.WorkerEnv;
import dev.weft.k8s.render.WorkerPod;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.log.LogFormat;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpec;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpecBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * The Jobs of a Weft runtime: the trainer {@code node} (Weft's worker pod, its spec from an env var and its claims
 * from the JobSet) and the initializers (the same image and security settings, fetching onto the workspace claim).
 */
final class RuntimePods {
  /** The JobSet claim every pod of a runtime mounts at {@link RuntimeRenderer#WORKSPACE}. */
  static final String WORKSPACE_CLAIM = "workspace";
  /** The initializers' retries: a fetch resumes a partial copy, so a retry costs little. */
  static final int INITIALIZER_BACKOFF = 2;

  private RuntimePods() {}

  /**
   * The trainer's Job: ancestor {@code trainer}, container {@code node} (where the torch plugin puts PET_*). The same
   * ancestor is where Trainer's TrainJobStatus plugin, when its feature gate is on, injects the
   * {@code KUBEFLOW_TRAINER_SERVER_*} variables and the token/CA volume (kubeflow/trainer
   * {@code pkg/runtime/framework/plugins/trainjobstatus/trainjobstatus.go}); rank 0 reports progress there
   * ({@code dev.weft.tracking.progress}), so the runtime renders nothing for it.
   */
  static JobTemplateSpec node(K8sSpec ks, RuntimeInputs inputs) {
    PodTemplateSpec pod = WorkerPod.template(ks, new WorkerPod.Options(TrainingRuntime.NODE, "rendezvous",
        List.of(WorkerEnv.value(RuntimeScripts.SPEC_ENV, SupportObjects.workerSpecYaml(ks, RuntimeRenderer.WORKSPACE))), List.of(), "Never", null));
    Container c = pod.getSpec().getContainers().get(0);
    c.setCommand(RuntimeScripts.command(RuntimeScripts.node(ks, inputs.workerOverrides()), "weft-node"));
    c.setArgs(null);
    dropVolume(pod, "spec"); // a ClusterTrainingRuntime cannot reference a namespaced ConfigMap: the spec travels as WEFT_SPEC
    String mountPath = ks.deployment().checkpointStorage().mountPath();
    if (ks.deployment().checkpointStorage().rendersClaim()) {
      dropVolume(pod, "checkpoints"); // the claim Weft would render per run is the JobSet's workspace claim here
      if (!mountPath.equals(RuntimeRenderer.WORKSPACE)) c.getVolumeMounts().add(mount(mountPath));
    }
    c.getVolumeMounts().add(mount(RuntimeRenderer.WORKSPACE));
    return new JobTemplateSpecBuilder()
        .withNewMetadata().addToLabels(TrainingRuntime.ANCESTOR_LABEL, TrainingRuntime.ANCESTOR_TRAINER).endMetadata()
        .withNewSpec().withBackoffLimit(0).withPodFailurePolicy(RetryPolicy.podFailurePolicy(TrainingRuntime.NODE))
        .withTemplate(pod).endSpec()
        .build();
  }

  /** An initializer's Job: ancestor and container both named {@code name}, as Trainer's JobSet plugin finds them. */
  static JobTemplateSpec initializer(K8sSpec ks, String name, String script) {
    PodTemplateSpec pod = WorkerPod.template(ks, new WorkerPod.Options(name, "unused", List.of(), List.of(), "Never", null));
    Container c = pod.getSpec().getContainers().get(0);
    c.setCommand(RuntimeScripts.command(script, name));
    c.setArgs(null);
    c.setPorts(null);
    c.setEnv(List.of(WorkerEnv.value("HOME", WorkerPod.SCRATCH_PATH), WorkerEnv.value(LogFormat.ENV, ks.spec().logging().format())));
    c.setResources(null);
    List<VolumeMount> mounts = new ArrayList<>(c.getVolumeMounts());
    mounts.removeIf(m -> !m.getName().equals("scratch"));
    mounts.add(mount(RuntimeRenderer.WORKSPACE));
    c.setVolumeMounts(mounts);
    pod.getSpec().getVolumes().removeIf(v -> !v.getName().equals("scratch"));
    pod.getSpec().setTerminationGracePeriodSeconds(null);
    return new JobTemplateSpecBuilder()
        .withNewMetadata().addToLabels(TrainingRuntime.ANCESTOR_LABEL, name).endMetadata()
        .withNewSpec().withBackoffLimit(INITIALIZER_BACKOFF).withTemplate(pod).endSpec()
        .build();
  }

  private static VolumeMount mount(String path) {
    return new VolumeMountBuilder().withName(WORKSPACE_CLAIM).withMountPath(path).build();
  }

  private static void dropVolume(PodTemplateSpec pod, String name) {
    pod.getSpec().getVolumes().removeIf(v -> v.getName().equals(name));
    pod.getSpec().getContainers().forEach(c -> c.getVolumeMounts().removeIf(m -> m.getName().equals(name)));
  }
}
