package dev.weft.k8s.cli;

import dev.weft.k8s.katib.KatibRenderer;
import dev.weft.k8s.katib.OptimizationJobRenderer;
import dev.weft.k8s.katib.SearchParameter;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.spec.K8sSpecLoader;
import dev.weft.k8s.trainer.RuntimeInputs;
import dev.weft.k8s.trainer.RuntimePresets;
import dev.weft.k8s.trainer.RuntimeRenderer;
import dev.weft.k8s.workflow.WorkflowRenderer;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** What {@code render} and {@code apply} share: the spec, its overrides, the target and an optional search. */
public final class RenderOptions {
  /** The targets that are not a run's job object: Trainer runtimes to install, and an Argo pipeline. */
  static final String RUNTIME = "runtime";
  static final String WORKFLOW = "workflow";

  @Parameters(index = "0", arity = "0..1", paramLabel = "SPEC", description = "The training spec (YAML or JSON).")
  Path spec;

  @Option(names = "--target", required = true, paramLabel = "T",
      description = "pytorchjob, trainjob, jobset, job (an Indexed Job + headless Service), runtime (Kubeflow Trainer"
          + " ClusterTrainingRuntime + TrainingRuntime to install once) or workflow (Argo: prepare, train, eval, export).")
  String target;

  @Option(names = "--preset", paramLabel = "NAME", description = "With --target runtime and no SPEC: a ready fine-tuning"
      + " runtime (weft-llama3.2-1b, weft-llama3.2-3b, weft-qwen2.5-1.5b), or all of them.")
  String preset;

  @Option(names = "--model-initializer", description = "With --target runtime: fetch the TrainJob's model to"
      + " /workspace/model first and train from it (model.pretrained).")
  boolean modelInitializer;

  @Option(names = "--chat-data", description = "With --target runtime: fetch the TrainJob's dataset and tokenize it"
      + " with the model's chat template first (needs --model-initializer).")
  boolean chatData;

  @Option(names = "--export-s3", paramLabel = "KEY", description = "With --target workflow: also upload the exported model"
      + " to KEY in the cluster's Argo artifact repository.")
  String exportS3;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a spec field (as for weft train).")
  List<String> overrides = new ArrayList<>();

  @Option(names = "--search", paramLabel = "PATH=MIN:MAX|A,B",
      description = "Render a Katib Experiment searching this spec path (repeatable), e.g. train.lr=1e-4:1e-3.")
  List<String> search = new ArrayList<>();

  @Option(names = "--objective", defaultValue = "loss", description = "Metric the search optimises (default: ${DEFAULT-VALUE}).")
  String objective;

  @Option(names = "--maximize", description = "Maximise the objective instead of minimising it.")
  boolean maximize;

  @Option(names = "--goal", description = "Stop the search once the objective reaches this value.")
  Double goal;

  @Option(names = "--algorithm", defaultValue = "random", description = "Katib algorithm (default: ${DEFAULT-VALUE}).")
  String algorithm;

  @Option(names = "--trials", defaultValue = "12", description = "Maximum trials (default: ${DEFAULT-VALUE}).")
  int trials;

  @Option(names = "--parallel-trials", defaultValue = "3", description = "Trials at once (default: ${DEFAULT-VALUE}).")
  int parallelTrials;

  /**
   * Loads and validates the spec, then renders it: a Katib Experiment when --search is given with --target pytorchjob,
   * a Trainer OptimizationJob (beside the spec's runtime) with --target runtime.
   */
  Rendered render() {
    String name = target.trim().toLowerCase(java.util.Locale.ROOT);
    if (name.equals(RUNTIME) && preset != null) return presets();
    if (name.equals(WORKFLOW)) return WorkflowRenderer.render(load(), exportS3);
    if (name.equals(RUNTIME)) {
      K8sSpec ks = load();
      if (!search.isEmpty()) return OptimizationJobRenderer.render(ks, search());
      return RuntimeRenderer.render(ks, ks.name(), new RuntimeInputs(modelInitializer, chatData));
    }
    Target t = parse(name);
    K8sSpec ks = load();
    if (search.isEmpty()) return Renderer.render(ks, t);
    if (t != Target.PYTORCHJOB) {
      throw new SpecException("--target", "a --search runs its trials as PyTorchJobs (Katib) or TrainJobs (Trainer's"
          + " OptimizationJob); use --target pytorchjob or runtime");
    }
    return KatibRenderer.render(ks, search());
  }

  private Rendered presets() {
    if (spec != null) throw new SpecException("--preset", "a preset is a spec of its own; give either SPEC or --preset");
    return "all".equals(preset) ? RuntimePresets.renderAll(overrides) : RuntimePresets.render(preset, overrides);
  }

  private K8sSpec load() {
    if (spec == null) {
      throw new SpecException("SPEC", "missing; give the training spec file (or --target runtime --preset NAME)");
    }
    return K8sSpecLoader.load(spec, overrides);
  }

  private static Target parse(String name) {
    try {
      return Target.parse(name);
    } catch (SpecException e) {
      throw new SpecException("--target", "'" + name + "' is not a target; use one of pytorchjob, trainjob, jobset, job, "
          + RUNTIME + " or " + WORKFLOW);
    }
  }

  /** The search, each value it may try checked to make a valid spec. */
  private KatibRenderer.Search search() {
    List<SearchParameter> params = search.stream().map(SearchParameter::parse).toList();
    for (SearchParameter p : params) {
      for (String probe : p.probes()) { // every value the search may try must make a valid spec
        List<String> withProbe = new ArrayList<>(overrides);
        withProbe.add(p.path() + "=" + probe);
        K8sSpecLoader.load(spec, withProbe);
      }
    }
    return new KatibRenderer.Search(params, objective, maximize ? "maximize" : "minimize",
        goal, algorithm, trials, parallelTrials, Math.max(1, trials / 4));
  }
}
