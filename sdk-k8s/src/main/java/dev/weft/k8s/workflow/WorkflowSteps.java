package dev.weft.k8s.workflow;

import dev.weft.k8s.crd.Workflow;
import dev.weft.k8s.render.WorkerEnv;
import dev.weft.k8s.render.WorkerPod;
import dev.weft.k8s.spec.K8sSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;

/**
 * The pipeline's container steps: each a {@code weft} command in the run's image, with the worker's security settings
 * and resources, the checkpoint claim at its mount path and a scratch {@code /tmp}. Paths are per workflow run:
 * {@code MOUNT/runs/{{workflow.name}}/...}.
 */
final class WorkflowSteps {
  static final List<String> VOLUMES = List.of("scratch", "checkpoints");
  private final K8sSpec ks;
  private final PodTemplateSpec worker;

  WorkflowSteps(K8sSpec ks) {
    this.ks = ks;
    this.worker = WorkerPod.template(ks, new WorkerPod.Options("weft", "unused", List.of(), List.of(), "Never", null));
  }

  /** Where this workflow run keeps its tokens, checkpoints, evaluation and export (Argo fills in the name). */
  String runDir() { return ks.deployment().checkpointStorage().mountPath() + "/runs/{{workflow.name}}"; }

  String tokens() { return runDir() + "/tokens"; }

  String checkpoints() { return runDir() + "/checkpoints"; }

  String export() { return runDir() + "/export"; }

  /** The volumes the steps mount: the worker pod's scratch and checkpoint volumes. */
  List<Volume> volumes() {
    return worker.getSpec().getVolumes().stream().filter(v -> VOLUMES.contains(v.getName())).toList();
  }

  Workflow.Template prepare() {
    return step("prepare", List.of("data", "prepare", "--tokenizer", "{{workflow.parameters.tokenizer}}",
        "--format", "{{workflow.parameters.format}}", "--input", "{{workflow.parameters.input}}", "--out", tokens()), null);
  }

  Workflow.Template eval() {
    return step("eval", List.of("eval", checkpoints(), "--data", tokens(), "--seq-len", Integer.toString(ks.spec().data().seqLen()),
        "-o", runDir() + "/eval.json"), null);
  }

  /** A Hugging Face directory (a LoRA run's adapters merged into its base); with {@code s3Key}, also uploaded there. */
  Workflow.Template export(String s3Key) {
    Workflow.Outputs out = s3Key == null ? null : new Workflow.Outputs(List.of(
        new Workflow.Artifact("model", export(), new Workflow.S3(s3Key), java.util.Map.of("none", java.util.Map.of()))));
    return step("export", List.of("checkpoint", "export", checkpoints(), "--format", "hf", "-o", export()), out);
  }

  private Workflow.Template step(String name, List<String> args, Workflow.Outputs outputs) {
    Container base = worker.getSpec().getContainers().get(0);
    Container c = new ContainerBuilder()
        .withName("main")
        .withImage(base.getImage())
        .withCommand("weft")
        .withArgs(args)
        .withEnv(WorkerEnv.value("HOME", WorkerPod.SCRATCH_PATH))
        .withResources(base.getResources())
        .withVolumeMounts(base.getVolumeMounts().stream().filter(m -> VOLUMES.contains(m.getName())).toList())
        .withSecurityContext(base.getSecurityContext())
        .build();
    return new Workflow.Template(name, null, c, null, worker.getSpec().getSecurityContext(), outputs);
  }
}
