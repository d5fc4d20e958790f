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

  public record Spec(RuntimeRef runtimeRef, Trainer trainer) {}

  public record RuntimeRef(String name, String apiGroup, String kind) {}

  public record Trainer(String image, List<String> command, List<String> args, List<EnvVar> env, Integer numNodes,
                        Integer numProcPerNode, ResourceRequirements resourcesPerNode) {}
}
