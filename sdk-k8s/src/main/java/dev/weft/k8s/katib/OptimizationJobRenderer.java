package dev.weft.k8s.katib;

import dev.weft.k8s.crd.OptimizationJob;
import dev.weft.k8s.crd.TrainJob;
import dev.weft.k8s.crd.TrainingRuntime;
import dev.weft.k8s.render.Labels;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.trainer.RuntimeRenderer;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.spec.SpecException;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The same search as {@link KatibRenderer}, as a Trainer 2.3 {@code OptimizationJob} beside the spec's own runtime: each
 * trial is a TrainJob on that runtime whose args set every searched path from its {@code KUBEFLOW_TRAINER_OPT_*}
 * variable, which Kubernetes expands ({@code $(NAME)}) from the env the controller gives the trial.
 */
public final class OptimizationJobRenderer {
  private OptimizationJobRenderer() {}

  public static Rendered render(K8sSpec ks, KatibRenderer.Search s) {
    Map<String, Object> algorithm = switch (s.algorithm()) {
      case "random" -> Map.of("random", Map.of());
      case "grid" -> grid(s);
      default -> throw new SpecException("--algorithm", "'" + s.algorithm() + "': a Trainer OptimizationJob searches with"
          + " random or grid; use one of them (or --target pytorchjob for Katib's algorithms)");
    };
    List<String> args = new ArrayList<>();
    for (SearchParameter p : s.parameters()) args.addAll(List.of("--set", p.path() + "=$(" + envName(p) + ")"));
    var trial = new TrainJob.Spec(new TrainJob.RuntimeRef(ks.name(), null, TrainingRuntime.KIND), null,
        new TrainJob.Trainer(null, null, args, null, ks.nodes().max(), null, null));
    var job = new OptimizationJob(Labels.jobMeta(ks, ks.name()), new OptimizationJob.Spec(s.maxTrials(), s.parallelTrials(),
        List.of(new OptimizationJob.Objective(s.objectiveMetric(), "maximize".equals(s.objectiveType()) ? "Maximize" : "Minimize")),
        s.parameters().stream().map(OptimizationJobRenderer::parameter).toList(), algorithm,
        new OptimizationJob.TrainJobTemplate(new ObjectMetaBuilder().withLabels(Labels.common(ks)).build(), trial)));
    List<Manifest> out = new ArrayList<>(List.of(RuntimeRenderer.render(ks).only(TrainingRuntime.KIND)));
    out.add(Manifest.of(job));
    return new Rendered(ks.namespace(), out);
  }

  /** The variable the controller sets for {@code p}: the prefix and the parameter's name upper-cased. */
  public static String envName(SearchParameter p) { return OptimizationJob.ENV_PREFIX + p.name().toUpperCase(Locale.ROOT); }

  private static Map<String, Object> grid(KatibRenderer.Search s) {
    for (SearchParameter p : s.parameters()) {
      if (p.values() == null) {
        throw new SpecException("--search", p.path() + ": grid search takes categories only (PATH=A,B,C); use --algorithm random");
      }
    }
    return Map.of("grid", Map.of());
  }

  private static OptimizationJob.Parameter parameter(SearchParameter p) {
    OptimizationJob.SearchSpace space = p.values() != null
        ? new OptimizationJob.SearchSpace(null, new OptimizationJob.Categorical(p.values()))
        : new OptimizationJob.SearchSpace(new OptimizationJob.Range(p.min(), p.max(), "int".equals(p.type()) ? "Int" : "Float"), null);
    return new OptimizationJob.Parameter(p.name(), space);
  }
}
