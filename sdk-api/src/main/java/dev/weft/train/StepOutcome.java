package dev.weft.train;

import dev.weft.metrics.StepMetrics;
import java.util.Map;

/**
 * What one step did, as {@link TrainStep#run} hands it to the loop for recording.
 *
 * @param noTargets no token of the global batch was a target: nothing ran, every rank skips the step alike
 * @param loss the step's loss over the global batch (NaN without targets)
 * @param stepScale the fp16 loss scale the step ran with (1 otherwise)
 * @param skipped the update was left out (fp16 overflow, a non-finite norm, a loss spike under action=skip)
 * @param preempted every rank agreed that a termination was requested: save and stop after this step
 * @param gradCause why the gradients diverged, or null
 * @param lossCause why the loss diverged (or spiked under action=stop), or null
 * @param spike why the step rolls the run back to its last checkpoint (a loss spike under action=rollback), or null
 * @param zeroComm ZeRO's gathers and reductions of the step, or null without targets
 * @param commNs nanoseconds of the step's exposed communication
 * @param objective the objective's own metrics, expert loads and activation measurements
 */
record StepOutcome(boolean noTargets, double lr, double loss, double gradNorm, double stepScale, boolean skipped,
                   boolean preempted, String gradCause, String lossCause, String spike, StepMetrics.ZeroComm zeroComm, long commNs,
                   Map<String, Double> objective) {
  /** A step whose global batch had no target: no pass ran and no update was made. */
  static StepOutcome withoutTargets(double lr, double stepScale) {
    return new StepOutcome(true, lr, Double.NaN, Double.NaN, stepScale, true, false, null, null, null, null, 0, Map.of());
  }

  /** Whether the run stops here as diverged. */
  boolean diverged() { return gradCause != null || lossCause != null; }
}
