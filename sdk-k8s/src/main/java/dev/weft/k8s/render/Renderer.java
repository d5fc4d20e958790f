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
    if (target == Target.TRAINJOB) TrainJobRenderer.requireTrainerPort(ks, Target.TRAINJOB.cliName());
    List<Manifest> out = new ArrayList<>();
    if (ks.deployment().checkpointStorage().rendersClaim()) out.add(SupportObjects.checkpointClaim(ks));
    out.add(SupportObjects.specConfigMap(ks));
    out.add(SupportObjects.networkPolicy(ks));
    if (ks.elastic()) out.add(SupportObjects.podDisruptionBudget(ks));
    out.add(SupportObjects.podMonitor(ks));
    List<Manifest> job = switch (target) {
      case PYTORCHJOB -> PyTorchJobRenderer.render(ks, extraArgs);
      case TRAINJOB -> TrainJobRenderer.render(ks, extraArgs);
      case JOBSET -> JobSetRenderer.render(ks, extraArgs);
      case JOB -> IndexedJobRenderer.render(ks, extraArgs);
    };
    for (Manifest m : job) out.add(!ks.elastic() && JOB_KINDS.contains(m.kind()) ? m.withComment(SupportObjects.NO_PDB_COMMENT) : m);
    return new Rendered(ks.namespace(), out, warnings(ks));
  }

  /** The kinds that carry a run's pods (what status reports and what the no-PDB comment sits on). */
  public static final List<String> JOB_KINDS = List.of("PyTorchJob", "TrainJob", "JobSet", "Job");

  /** Spec settings that render but probably not as meant: one line each. */
  static List<String> warnings(K8sSpec ks) {
    List<String> w = new ArrayList<>();
    if (ks.deployment().gpusPerNode() > 0 && !WorkerPod.usesGpus(ks)) {
      w.add("deployment.gpusPerNode: " + ks.deployment().gpusPerNode() + " GPU(s) per node are not requested because device is "
          + ks.spec().device() + "; set device: cuda (or auto) to train on them, or gpusPerNode: 0");
    }
    return w;
  }
}
