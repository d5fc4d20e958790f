package dev.weft.k8s.katib;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.k8s.crd.Experiment;
import dev.weft.k8s.crd.PyTorchJob;
import dev.weft.k8s.render.Labels;
import dev.weft.k8s.render.PyTorchJobRenderer;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.SupportObjects;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.k8s.yaml.Yaml;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Katib Experiment whose trials are the run's PyTorchJob with {@code --set PATH=VALUE} per trial, and
 * whose StdOut collector reads the {@code name=value} lines Weft prints (e.g. {@code loss=1.23}).
 */
public final class KatibRenderer {
  /** How the search is run. {@code goal} may be null. */
  public record Search(List<SearchParameter> parameters, String objectiveMetric, String objectiveType, Double goal,
                       String algorithm, int maxTrials, int parallelTrials, int maxFailedTrials) {}

  private KatibRenderer() {}

  public static Rendered render(K8sSpec ks, Search s) {
    List<String> args = new ArrayList<>();
    s.parameters().forEach(p -> args.addAll(p.workerArgs()));
    ObjectNode trial = Yaml.tree(PyTorchJobRenderer.job(ks, args));
    ObjectNode meta = (ObjectNode) trial.get("metadata");
    meta.remove(List.of("name", "namespace")); // Katib names each trial's job; the labels (queue included) stay
    Map<String, String> primary = ks.elastic()
        ? Map.of("training.kubeflow.org/replica-type", "worker", "training.kubeflow.org/replica-index", "0")
        : Map.of("training.kubeflow.org/replica-type", "master");
    var template = new Experiment.TrialTemplate(PyTorchJob.CONTAINER, primary,
        s.parameters().stream().map(p -> new Experiment.TrialParameter(p.name(), "spec path " + p.path(), p.name())).toList(),
        "status.conditions.#(type==\"Succeeded\")#|#(status==\"True\")#",
        "status.conditions.#(type==\"Failed\")#|#(status==\"True\")#",
        trial);
    var experiment = new Experiment(Labels.meta(ks, ks.name()), new Experiment.Spec(
        new Experiment.Objective(s.objectiveType(), s.goal(), s.objectiveMetric(), null),
        new Experiment.Algorithm(s.algorithm()), s.parallelTrials(), s.maxTrials(), s.maxFailedTrials(),
        s.parameters().stream().map(SearchParameter::toKatib).toList(),
        new Experiment.MetricsCollectorSpec(new Experiment.Collector("StdOut")), template));
    return new Rendered(ks.namespace(), List.of(SupportObjects.specConfigMap(ks), SupportObjects.networkPolicy(ks),
        SupportObjects.podMonitor(ks), Manifest.of(experiment)));
  }
}
