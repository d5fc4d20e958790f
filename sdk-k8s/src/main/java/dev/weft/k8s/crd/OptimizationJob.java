package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;

/**
 * Kubeflow Trainer 2.3 {@code OptimizationJob} ({@code trainer.kubeflow.org/v1alpha1}, KEP-2605): trials are TrainJobs
 * from {@code trainJobTemplate}, each given its hyperparameters as {@code KUBEFLOW_TRAINER_OPT_<NAME upper-cased>}
 * in {@code trainer.env} (the OptimizationJob controller).
 */
public record OptimizationJob(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "trainer.kubeflow.org/v1alpha1";
  public static final String KIND = "OptimizationJob";
  /** The prefix of the variables a trial's hyperparameters arrive in. */
  public static final String ENV_PREFIX = "KUBEFLOW_TRAINER_OPT_";

  public OptimizationJob(ObjectMeta metadata, Spec spec) { this(API_VERSION, KIND, metadata, spec); }

  public record Spec(Integer numTrials, Integer parallelTrials, List<Objective> objectives, List<Parameter> parameters,
                     Map<String, Object> searchAlgorithm, TrainJobTemplate trainJobTemplate) {}

  /** {@code direction}: Minimize or Maximize. */
  public record Objective(String metric, String direction) {}

  public record Parameter(String name, SearchSpace searchSpace) {}

  /** One of {@code uniform} or {@code categorical}. */
  public record SearchSpace(Range uniform, Categorical categorical) {}

  /** {@code type}: Float or Int. */
  public record Range(String min, String max, String type) {}

  public record Categorical(List<String> choices) {}

  public record TrainJobTemplate(ObjectMeta metadata, TrainJob.Spec spec) {}
}
