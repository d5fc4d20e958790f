package dev.weft.k8s.trainer;

import dev.weft.k8s.crd.JobSet;
import dev.weft.k8s.crd.TrainingRuntime;
import dev.weft.k8s.render.Labels;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.RetryPolicy;
import dev.weft.k8s.render.TrainJobRenderer;
import dev.weft.k8s.spec.K8sDeploymentValidator;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.spec.SpecException;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;

/**
 * A Kubeflow Trainer v2 runtime for Weft, installed once and referenced by TrainJobs (kubeflow/trainer v2.3 API):
 * a {@code ClusterTrainingRuntime} and a namespaced {@code TrainingRuntime} with the same spec. {@code mlPolicy.torch}
 * makes the trainer inject PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR and PET_MASTER_PORT into the
 * {@code node} container; the model and dataset initializers ({@link RuntimeInputs}) fetch what the TrainJob names onto a JobSet claim every pod mounts at /workspace.
 */
public final class RuntimeRenderer {
  public static final String WORKSPACE = "/workspace";
  public static final String MODEL_DIR = WORKSPACE + "/model";
  public static final String DATASET_DIR = WORKSPACE + "/dataset";
  /** A spec whose data.source is this trains on chat data the dataset initializer tokenizes with the model's template. */
  public static final String TOKENS_DIR = WORKSPACE + "/tokens";
  /** The label Kubeflow's SDK reads to tell runtimes apart. */
  public static final String FRAMEWORK_LABEL = "trainer.kubeflow.org/framework";
  public static final String FRAMEWORK = "weft";

  private RuntimeRenderer() {}

  public static Rendered render(K8sSpec ks) { return render(ks, ks.name(), RuntimeInputs.NONE); }

  /**
   * The runtimes named {@code name} (a DNS subdomain: dots allowed, as in {@code weft-llama3.2-1b}), with initializers
   * for {@code inputs}.
   */
  public static Rendered render(K8sSpec ks, String name, RuntimeInputs inputs) {
    if (ks.elastic()) {
      throw new SpecException("deployment.nodes", "'" + ks.nodes() + "' is an elastic range; a Trainer runtime runs"
          + " numNodes fixed nodes (elastic TrainJobs were removed in Trainer v2.2): use a node count");
    }
    TrainJobRenderer.requireTrainerPort(ks, "runtime");
    TrainingRuntime.Spec spec = spec(ks, inputs);
    return new Rendered(ks.namespace(), List.of(
        Manifest.of(new TrainingRuntime(TrainingRuntime.API_VERSION, TrainingRuntime.CLUSTER_KIND, meta(ks, name, null), spec)),
        Manifest.of(new TrainingRuntime(TrainingRuntime.API_VERSION, TrainingRuntime.KIND, meta(ks, name, ks.namespace()), spec))));
  }

  static TrainingRuntime.Spec spec(K8sSpec ks, RuntimeInputs inputs) {
    boolean model = inputs.model();
    boolean prepare = inputs.chatData();
    if (prepare && !model) {
      throw new SpecException("--chat-data", "chat data is tokenized with the model's tokenizer and template; add the"
          + " model initializer (--model-initializer)");
    }
    boolean dataset = prepare;
    List<JobSet.ReplicatedJob> jobs = new ArrayList<>();
    List<JobSet.DependsOn> before = new ArrayList<>();
    if (model) {
      jobs.add(new JobSet.ReplicatedJob(TrainingRuntime.MODEL_INITIALIZER, null, 1,
          RuntimePods.initializer(ks, TrainingRuntime.MODEL_INITIALIZER, RuntimeScripts.fetch("model", MODEL_DIR))));
      before.add(complete(TrainingRuntime.MODEL_INITIALIZER));
    }
    if (dataset) {
      String script = prepare ? RuntimeScripts.fetchAndPrepareChat(DATASET_DIR, MODEL_DIR, TOKENS_DIR)
          : RuntimeScripts.fetch("dataset", DATASET_DIR);
      jobs.add(new JobSet.ReplicatedJob(TrainingRuntime.DATASET_INITIALIZER, prepare ? List.of(complete(TrainingRuntime.MODEL_INITIALIZER)) : null,
          1, RuntimePods.initializer(ks, TrainingRuntime.DATASET_INITIALIZER, script)));
      before.add(complete(TrainingRuntime.DATASET_INITIALIZER));
    }
    jobs.add(new JobSet.ReplicatedJob(TrainingRuntime.NODE, before.isEmpty() ? null : before, 1, RuntimePods.node(ks, inputs)));
    JobSet.Spec jobSet = new JobSet.Spec(jobs, null, RetryPolicy.jobSetFailurePolicy(ks), null,
        List.of(new JobSet.VolumeClaimPolicy(List.of(workspaceClaim(ks)), new JobSet.RetentionPolicy("Retain"))));
    return new TrainingRuntime.Spec(new TrainingRuntime.MlPolicy(ks.nodes().max(), new TrainingRuntime.Torch(null)),
        new TrainingRuntime.Template(new ObjectMetaBuilder().withLabels(Labels.common(ks)).build(), jobSet));
  }

  /**
   * The claim JobSet creates per TrainJob ({@code workspace-<trainjob>}) and keeps when it is deleted, so a rerun of
   * the same TrainJob name resumes from its checkpoints: the checkpoint claim's size, class and access mode.
   */
  static PersistentVolumeClaim workspaceClaim(K8sSpec ks) {
    var storage = ks.deployment().checkpointStorage();
    String size = storage.rendersClaim() ? storage.size() : K8sDeploymentValidator.DEFAULT_CLAIM_SIZE;
    String storageClass = storage.storageClass() == null || storage.storageClass().isBlank() ? null : storage.storageClass();
    return new PersistentVolumeClaimBuilder().withNewMetadata().withName(RuntimePods.WORKSPACE_CLAIM).endMetadata()
        .withNewSpec().withAccessModes(storage.accessMode()).withStorageClassName(storageClass)
        .withNewResources().addToRequests("storage", new Quantity(size)).endResources().endSpec()
        .build();
  }

  private static ObjectMeta meta(K8sSpec ks, String name, String namespace) {
    ObjectMeta m = Labels.meta(ks, name);
    m.setNamespace(namespace);
    m.getLabels().put(FRAMEWORK_LABEL, FRAMEWORK);
    return m;
  }

  private static JobSet.DependsOn complete(String job) { return new JobSet.DependsOn(job, "Complete"); }

}
