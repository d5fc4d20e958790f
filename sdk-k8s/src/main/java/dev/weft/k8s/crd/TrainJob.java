package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.List;

/** Kubeflow Trainer v2 {@code TrainJob} ({@code trainer.kubeflow.org/v1alpha1}, v2.3). */
public record TrainJob(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "trainer.kubeflow.org/v1alpha1";
  public static final String KIND = "TrainJob";

  public TrainJob(ObjectMeta metadata, Spec spec) { this(API_VERSION, KIND, metadata, spec); }

  public record Spec(RuntimeRef runtimeRef, Initializer initializer, Trainer trainer) {
    public Spec(RuntimeRef runtimeRef, Trainer trainer) { this(runtimeRef, null, trainer); }
  }

  /** What the runtime's initializer jobs fetch: Trainer sets STORAGE_URI in their containers from {@code storageUri}. */
  public record Initializer(Source dataset, Source model) {}

  /** {@code secretRef}: a Secret whose keys become the initializer container's environment (envFrom). */
  public record Source(String storageUri, List<EnvVar> env, SecretRef secretRef) {}

  public record SecretRef(String name) {}

  public record RuntimeRef(String name, String apiGroup, String kind) {}

  /** Unset fields keep the runtime's; {@code args} replace the runtime's args of the {@code node} container. */
  public record Trainer(String image, List<String> command, List<String> args, List<EnvVar> env, Integer numNodes,
                        Integer numProcPerNode, ResourceRequirements resourcesPerNode) {}
}
