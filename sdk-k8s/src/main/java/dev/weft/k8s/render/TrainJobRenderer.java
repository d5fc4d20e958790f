package dev.weft.k8s.render;

import dev.weft.k8s.crd.JobSet;
import dev.weft.k8s.crd.TrainJob;
import dev.weft.k8s.crd.TrainingRuntime;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobTemplateSpecBuilder;
import java.util.List;

/**
 * Kubeflow Trainer v2: a namespaced TrainingRuntime (torch policy, one replicated job {@code node} whose
 * container {@code node} runs the worker) and a TrainJob that references it. The torch plugin injects
 * PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT.
 */
public final class TrainJobRenderer {
  /** PET_MASTER_PORT as the torch plugin sets it, in every release v2.0.0-rc.0 … v2.3.0. */
  public static final int MASTER_PORT = 29500;

  private TrainJobRenderer() {}

  /** The torch plugin's PET_MASTER_PORT is fixed: a spec asking for another port is refused for {@code target}. */
  public static void requireTrainerPort(K8sSpec ks, String target) {
    if (ks.deployment().port() != MASTER_PORT) {
      throw new dev.weft.spec.SpecException("deployment.port", ks.deployment().port() + ": Kubeflow Trainer's torch plugin"
          + " always sets PET_MASTER_PORT=" + MASTER_PORT + "; use " + MASTER_PORT + " (the default) for --target " + target);
    }
  }

  public static List<Manifest> render(K8sSpec ks, List<String> extraArgs) {
    var pod = WorkerPod.template(ks, new WorkerPod.Options(TrainingRuntime.NODE, "rendezvous", List.of(), extraArgs,
        "Never", null));
    var job = new JobTemplateSpecBuilder()
        .withNewMetadata().addToLabels(TrainingRuntime.ANCESTOR_LABEL, "trainer").endMetadata()
        .withNewSpec().withBackoffLimit(0).withPodFailurePolicy(RetryPolicy.podFailurePolicy(TrainingRuntime.NODE))
        .withTemplate(pod).endSpec()
        .build();
    var runtime = new TrainingRuntime(Labels.meta(ks, ks.name()), new TrainingRuntime.Spec(
        new TrainingRuntime.MlPolicy(ks.nodes().max(), new TrainingRuntime.Torch(null)),
        new TrainingRuntime.Template(new ObjectMetaBuilder().withLabels(Labels.common(ks)).build(), new JobSet.Spec(
            List.of(new JobSet.ReplicatedJob(TrainingRuntime.NODE, 1, job)), null,
            RetryPolicy.jobSetFailurePolicy(ks), null))));
    var trainJob = new TrainJob(Labels.jobMeta(ks, ks.name()), new TrainJob.Spec(
        new TrainJob.RuntimeRef(ks.name(), "trainer.kubeflow.org", TrainingRuntime.KIND),
        new TrainJob.Trainer(null, null, null, null, ks.nodes().max(), ks.procsPerNode(), null)));
    return List.of(Manifest.of(runtime), Manifest.of(trainJob));
  }

  /** Where the torch plugin points PET_MASTER_ADDR: the first pod of the {@code node} job. */
  public static String masterHost(K8sSpec ks) { return ks.name() + "-node-0-0." + ks.name(); }
}
