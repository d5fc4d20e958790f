package dev.weft.k8s.render;

import dev.weft.k8s.spec.K8sSpec;
import dev.weft.k8s.yaml.Manifest;
import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.List;

/** spec → objects for one target. Pure: nothing here touches a cluster or a file. */
public final class Renderer {
  private Renderer() {}

  public static Rendered render(K8sSpec ks, Target target) { return render(ks, target, List.of()); }

  /** {@code extraArgs} are appended to every worker's command line (Katib's per-trial overrides). */
  public static Rendered render(K8sSpec ks, Target target, List<String> extraArgs) {
    if (ks.elastic() && target != Target.PYTORCHJOB) {
      throw new SpecException("deployment.nodes", "'" + ks.nodes() + "' is an elastic range, which only --target "
          + Target.PYTORCHJOB.cliName() + " supports; use a fixed node count for --target " + target.cliName());
    }
    if (target == Target.TRAINJOB && ks.deployment().port() != TrainJobRenderer.MASTER_PORT) {
      throw new SpecException("deployment.port", ks.deployment().port() + ": Kubeflow Trainer's torch plugin always sets"
          + " PET_MASTER_PORT=" + TrainJobRenderer.MASTER_PORT + "; use " + TrainJobRenderer.MASTER_PORT + " (the default) for --target "
          + Target.TRAINJOB.cliName());
    }
    List<Manifest> out = new ArrayList<>();
    if (ks.deployment().checkpointStorage().rendersClaim()) out.add(SupportObjects.checkpointClaim(ks));
    out.add(SupportObjects.specConfigMap(ks));
    out.add(SupportObjects.networkPolicy(ks));
    out.add(SupportObjects.podDisruptionBudget(ks));
    out.add(SupportObjects.podMonitor(ks));
    out.addAll(switch (target) {
      case PYTORCHJOB -> PyTorchJobRenderer.render(ks, extraArgs);
      case TRAINJOB -> TrainJobRenderer.render(ks, extraArgs);
      case JOBSET -> JobSetRenderer.render(ks, extraArgs);
      case JOB -> IndexedJobRenderer.render(ks, extraArgs);
    });
    return new Rendered(ks.namespace(), out);
  }
}
