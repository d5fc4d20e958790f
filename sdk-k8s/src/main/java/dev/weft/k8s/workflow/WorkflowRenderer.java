package dev.weft.k8s.workflow;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.crd.Workflow;
import dev.weft.k8s.render.Labels;
import dev.weft.k8s.render.PyTorchJobRenderer;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.SupportObjects;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.List;

/**
 * An Argo pipeline for one spec: a {@code WorkflowTemplate} and a {@code Workflow} with the same DAG,
 * prepare (weft data prepare) → train (a PyTorchJob created by a resource template, waited on) → eval (weft eval) →
 * export (weft checkpoint export, Hugging Face format; merged for LoRA) and, with an S3 key, the export uploaded as an
 * artifact. The steps share the spec's checkpoint claim. The train step creates a PyTorchJob rather than a TrainJob:
 * Argo's conditions are label requirements over scalar gjson paths, and a TrainJob's outcome is only in its
 * conditions list, which they cannot select; a PyTorchJob's is in {@code status.replicaStatuses.Master}.
 */
public final class WorkflowRenderer {
  public static final List<String> STEPS = List.of("prepare", "train", "eval", "export");
  /** The service account the workflow's pods run as: it must be allowed to create PyTorchJobs (docs/kubernetes.md). */
  public static final String SERVICE_ACCOUNT = "weft-workflow";

  private WorkflowRenderer() {}

  /** {@code s3Key} (or null): where the export goes in the cluster's Argo artifact repository. */
  public static Rendered render(K8sSpec ks, String s3Key) {
    if (!ks.deployment().checkpointStorage().usesPvc()) {
      throw new SpecException("deployment.checkpointStorage", "the workflow's steps pass data through the checkpoint claim;"
          + " set pvc (a ReadWriteMany claim) or size (Weft renders one)");
    }
    WorkflowSteps steps = new WorkflowSteps(ks);
    Workflow.Spec spec = new Workflow.Spec("pipeline", new Workflow.Arguments(List.of(
        new Workflow.Parameter("input", ks.deployment().checkpointStorage().mountPath() + "/input/train.jsonl",
            "the raw data on the claim: text, JSONL, chat JSONL or Parquet (weft data prepare --input)"),
        new Workflow.Parameter("tokenizer", "bytes", "a tokenizer.json, a model directory, or bytes"),
        new Workflow.Parameter("format", "auto", "auto, text, jsonl or chat"))),
        SERVICE_ACCOUNT, steps.volumes(), List.of(
            dag(), steps.prepare(), train(ks, steps), steps.eval(), steps.export(s3Key)));
    List<Manifest> out = new ArrayList<>();
    if (ks.deployment().checkpointStorage().rendersClaim()) out.add(SupportObjects.checkpointClaim(ks));
    out.add(SupportObjects.specConfigMap(ks));
    out.add(SupportObjects.networkPolicy(ks));
    out.add(Manifest.of(new Workflow(Workflow.API_VERSION, Workflow.TEMPLATE_KIND, Labels.meta(ks, ks.name()), spec)));
    out.add(Manifest.of(new Workflow(Workflow.API_VERSION, Workflow.KIND, Labels.jobMeta(ks, ks.name()), spec)));
    return new Rendered(ks.namespace(), out);
  }

  private static Workflow.Template dag() {
    List<Workflow.Task> tasks = new ArrayList<>();
    for (int i = 0; i < STEPS.size(); i++) {
      tasks.add(new Workflow.Task(STEPS.get(i), STEPS.get(i), i == 0 ? null : List.of(STEPS.get(i - 1))));
    }
    return new Workflow.Template("pipeline", new Workflow.Dag(tasks), null, null, null, null);
  }

  /** The run's PyTorchJob on this workflow run's tokens and checkpoints, named after the run by the server. */
  static Workflow.Template train(K8sSpec ks, WorkflowSteps steps) {
    ObjectNode job = Yaml.tree(PyTorchJobRenderer.job(ks, List.of("--set", "data.source=" + steps.tokens(),
        "--set", "checkpoint.dir=" + steps.checkpoints())));
    ObjectNode meta = (ObjectNode) job.get("metadata");
    meta.remove("name");
    meta.put("generateName", ks.name() + "-");
    String replica = ks.elastic() ? "Worker" : "Master";
    return new Workflow.Template("train", null, null, new Workflow.Resource("create", true, Yaml.write(job),
        "status.replicaStatuses." + replica + ".succeeded > 0", "status.replicaStatuses." + replica + ".failed > 0"),
        null, null);
  }
}
