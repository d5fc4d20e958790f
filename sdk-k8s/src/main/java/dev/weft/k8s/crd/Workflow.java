package dev.weft.k8s.crd;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.List;
import java.util.Map;

/** Argo {@code Workflow} and {@code WorkflowTemplate} ({@code argoproj.io/v1alpha1}): the fields Weft's pipeline uses. */
public record Workflow(String apiVersion, String kind, ObjectMeta metadata, Spec spec) implements CustomObject {
  public static final String API_VERSION = "argoproj.io/v1alpha1";
  public static final String KIND = "Workflow";
  public static final String TEMPLATE_KIND = "WorkflowTemplate";

  public record Spec(String entrypoint, Arguments arguments, String serviceAccountName, List<Volume> volumes,
                     List<Template> templates) {}

  public record Arguments(List<Parameter> parameters) {}

  public record Parameter(String name, String value, String description) {}

  /** One of {@code dag}, {@code container} or {@code resource}. */
  public record Template(String name, Dag dag, Container container, Resource resource, PodSecurityContext securityContext,
                         Outputs outputs) {}

  public record Dag(List<Task> tasks) {}

  public record Task(String name, String template, List<String> dependencies) {}

  /**
   * A Kubernetes object the step creates and waits for: {@code successCondition}/{@code failureCondition} are label
   * requirements over gjson paths of the object (workflow/executor/resource.go, matchConditions).
   */
  public record Resource(String action, Boolean setOwnerReference, String manifest, String successCondition,
                         String failureCondition) {}

  public record Outputs(List<Artifact> artifacts) {}

  /** {@code s3.key} under the cluster's configured artifact repository; {@code archive.none} uploads the files as they are. */
  public record Artifact(String name, String path, S3 s3, Map<String, Object> archive) {}

  public record S3(String key) {}
}
