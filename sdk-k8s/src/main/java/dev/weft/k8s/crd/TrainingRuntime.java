package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.ObjectMeta;

/** Kubeflow Trainer v2 {@code TrainingRuntime} ({@code trainer.kubeflow.org/v1alpha1}, v2.3). */
public record TrainingRuntime(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "trainer.kubeflow.org/v1alpha1";
  public static final String KIND = "TrainingRuntime";
  /** The cluster-scoped kind with the same spec (one runtime for every namespace). */
  public static final String CLUSTER_KIND = "ClusterTrainingRuntime";
  /** The replicated job and container the torch plugin injects PET_* into. */
  public static final String NODE = "node";
  public static final String ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step";
  /** Ancestor-label values and container names Trainer's JobSet plugin looks for (pkg/constants). */
  public static final String ANCESTOR_TRAINER = "trainer";
  public static final String DATASET_INITIALIZER = "dataset-initializer";
  public static final String MODEL_INITIALIZER = "model-initializer";
  /** The variable Trainer sets in an initializer container from the TrainJob's {@code storageUri}. */
  public static final String STORAGE_URI = "STORAGE_URI";

  public TrainingRuntime(ObjectMeta metadata, Spec spec) { this(API_VERSION, KIND, metadata, spec); }

  public record Spec(MlPolicy mlPolicy, Template template) {}

  public record MlPolicy(Integer numNodes, Torch torch) {}

  /** Torch plugin settings; empty enables the plugin (PET_* env, PET_MASTER_PORT=29500). */
  public record Torch(Object envInjection) {}

  public record Template(ObjectMeta metadata, JobSet.Spec spec) {}
}
