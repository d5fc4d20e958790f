package dev.weft.k8s.cli;

import dev.weft.k8s.katib.KatibRenderer;
import dev.weft.k8s.katib.SearchParameter;
import dev.weft.k8s.render.Rendered;
import dev.weft.k8s.render.Renderer;
import dev.weft.k8s.render.Target;
import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.spec.K8sSpecLoader;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** What {@code render} and {@code apply} share: the spec, its overrides, the target and an optional search. */
public final class RenderOptions {
  @Parameters(index = "0", paramLabel = "SPEC", description = "The training spec (YAML or JSON).")
  Path spec;

  @Option(names = "--target", required = true, paramLabel = "T",
      description = "pytorchjob, trainjob, jobset or job (an Indexed Job + headless Service).")
  String target;

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

  /** Loads and validates the spec, then renders it (a Katib Experiment when --search is given). */
  Rendered render() {
    Target t = Target.parse(target);
    K8sSpec ks = K8sSpecLoader.load(spec, overrides);
    if (search.isEmpty()) return Renderer.render(ks, t);
    if (t != Target.PYTORCHJOB) {
      throw new SpecException("--target", "a --search runs its trials as PyTorchJobs; use --target pytorchjob");
    }
    List<SearchParameter> params = search.stream().map(SearchParameter::parse).toList();
    for (SearchParameter p : params) {
      for (String probe : p.probes()) { // every value the search may try must make a valid spec
        List<String> withProbe = new ArrayList<>(overrides);
        withProbe.add(p.path() + "=" + probe);
        K8sSpecLoader.load(spec, withProbe);
      }
    }
    return KatibRenderer.render(ks, new KatibRenderer.Search(params, objective, maximize ? "maximize" : "minimize",
        goal, algorithm, trials, parallelTrials, Math.max(1, trials / 4)));
  }
}
