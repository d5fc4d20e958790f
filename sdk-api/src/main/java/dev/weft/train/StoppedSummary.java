package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.metrics.RunSummary;
import dev.weft.spec.TrainingSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@code summary.json} of a run that stopped before its last step (diverged, preempted). */
final class StoppedSummary {
  private StoppedSummary() {}

  /** {@code summary.json} of a run stopped before its end: the step it stopped at, the last finite loss, why. */
  static RunSummary of(String status, TrainingSpec spec, Distributed dist, long step, double initialLoss,
                            List<Double> losses, long skipped, double wallS, String message) {
    Map<String, Integer> mesh = new LinkedHashMap<>();
    mesh.put("dp", dist.mesh().dp());
    mesh.put("tp", dist.mesh().tp());
    mesh.put("pp", dist.mesh().pp());
    double last = Double.NaN;
    for (double l : losses) if (Double.isFinite(l)) last = l;
    return new RunSummary(status, step, dist.mesh().worldSize(), mesh, initialLoss, last, 0, 0, 0, wallS, false, 0,
        spec.precision().dtype(), spec.parallel().zero(), null, skipped, message, 0, null);
  }
}
