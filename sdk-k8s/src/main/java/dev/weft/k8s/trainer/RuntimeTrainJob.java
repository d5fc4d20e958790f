package dev.weft.k8s.trainer;

import dev.weft.k8s.crd.TrainJob;
import dev.weft.k8s.crd.TrainingRuntime;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

/**
 * The smallest TrainJob that runs on a Weft runtime: the runtime's name, {@code trainer.numNodes}, and where the model
 * and the dataset are ({@code initializer.*.storageUri}, which Trainer hands the initializers as STORAGE_URI).
 * Either URI may be null for a runtime without that initializer.
 */
public final class RuntimeTrainJob {
  private RuntimeTrainJob() {}

  public static TrainJob of(String name, String namespace, String runtime, boolean clusterRuntime, int numNodes,
                            String modelUri, String datasetUri) {
    TrainJob.Initializer init = modelUri == null && datasetUri == null ? null
        : new TrainJob.Initializer(source(datasetUri), source(modelUri));
    return new TrainJob(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build(), new TrainJob.Spec(
        new TrainJob.RuntimeRef(runtime, null, clusterRuntime ? null : TrainingRuntime.KIND), init,
        new TrainJob.Trainer(null, null, null, null, numNodes, null, null)));
  }

  private static TrainJob.Source source(String uri) { return uri == null ? null : new TrainJob.Source(uri, null, null); }
}
