package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.List;
import java.util.Map;

/** Katib {@code Experiment} ({@code kubeflow.org/v1beta1}). */
public record Experiment(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "kubeflow.org/v1beta1";
  public static final String KIND = "Experiment";

  public Experiment(ObjectMeta metadata, Spec spec) { this(API_VERSION, KIND, metadata, spec); }

  public record Spec(Objective objective, Algorithm algorithm, Integer parallelTrialCount, Integer maxTrialCount,
                     Integer maxFailedTrialCount, List<Parameter> parameters, MetricsCollectorSpec metricsCollectorSpec,
                     TrialTemplate trialTemplate) {}

  public record Objective(String type, Double goal, String objectiveMetricName, List<String> additionalMetricNames) {}

  public record Algorithm(String algorithmName) {}

  public record Parameter(String name, String parameterType, FeasibleSpace feasibleSpace) {}

  public record FeasibleSpace(String min, String max, List<String> list) {}

  public record MetricsCollectorSpec(Collector collector) {}

  public record Collector(String kind) {}

  /** The trial: {@code trialSpec} is a whole job object with {@code ${trialParameters.NAME}} placeholders. */
  public record TrialTemplate(String primaryContainerName, Map<String, String> primaryPodLabels,
                              List<TrialParameter> trialParameters, String successCondition, String failureCondition,
                              Object trialSpec) {}

  public record TrialParameter(String name, String description, String reference) {}
}
