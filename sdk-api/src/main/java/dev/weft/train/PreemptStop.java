package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.metrics.MetricsJson;
import dev.weft.preempt.Preemption;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stopping a run on SIGTERM, on every rank at the same step. Each rank adds "this process was told to stop" to the
 * step's loss reduction ({@link Divergence#reduce}), so after the step every rank knows whether any was, with no
 * extra collective; at that step's boundary every rank saves an emergency checkpoint through the normal commit
 * protocol (unless the step's regular one was just saved), waits for it to be committed, meets the others, and
 * rank 0 writes {@code summary.json} with {@code status: preempted}.
 */
final class PreemptStop {
  private static final Logger log = LoggerFactory.getLogger(PreemptStop.class);
  static final String STATUS = "preempted";

  private PreemptStop() {}

  /** This rank's term of the step's reduction: 1 when this process was told to stop. */
  static double localFlag() { return Preemption.requested() ? 1 : 0; }

  /** Whether any rank was told to stop, from the reduced terms (the last one is the summed flags). */
  static boolean agreed(double[] summed) { return summed[summed.length - 1] > 0; }

  /**
   * Saves the emergency checkpoint of {@code step} (when the regular one was not {@code saved} just now), waits for
   * its commit, meets every rank, writes the summary on rank 0 and returns the exception that ends the run.
   */
  static RunPreemptedException stop(TrainingSpec spec, Distributed dist, Path runDir, TrainingCheckpoints checkpoints,
                                    long step, boolean saved, Runnable save, double initialLoss, List<Double> losses,
                                    long skipped, double wallS) {
    long t0 = System.nanoTime();
    boolean checkpointed = saved || checkpoints.saving();
    if (!saved && checkpointed) save.run();
    checkpoints.awaitCommitted();
    double saveS = (System.nanoTime() - t0) / 1e9;
    dist.world().allReduce(Tensors.ofLongs(step), ReduceOp.MAX); // no rank leaves (rank 0 holds the store) before all saved
    String message = checkpointed
        ? "preempted (SIGTERM) after step " + step + ": emergency checkpoint of step " + step + " committed in "
            + String.format("%.1f", saveS) + " s; continue with --resume latest (checkpoint.resume=latest)"
        : "preempted (SIGTERM) after step " + step + " with no checkpoint (checkpoint.every is 0): a new run starts from step 0";
    if (dist.rank() == 0) {
      log.warn("{}", message);
      MetricsJson.writeSummary(runDir, StoppedSummary.of(STATUS, spec, dist, step, initialLoss, losses, skipped, wallS, message));
      checkpoints.publishRecord(); // the run record with the checkpoints says it was preempted too
    }
    return new RunPreemptedException(step, checkpointed, message);
  }
}
