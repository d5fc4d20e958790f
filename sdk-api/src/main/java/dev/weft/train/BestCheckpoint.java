package dev.weft.train;

/**
 * Which evaluation is the run's best so far ({@code checkpoint.saveBest}): the lowest eval loss, ties kept at the
 * earlier step. Pure bookkeeping; {@link TrainingCheckpoints} saves and pins the checkpoint it names.
 */
final class BestCheckpoint {
  /** The state key a checkpoint records its step's eval loss under; {@code weft checkpoint export --best} reads it. */
  static final String EVAL_LOSS = dev.weft.checkpoint.CheckpointResolver.EVAL_LOSS;
  /** State keys of the best so far at a checkpoint's step, so a resumed run measures its evaluations against it. */
  static final String BEST_LOSS = "best_eval_loss", BEST_STEP = "best_step";

  private double best = Double.POSITIVE_INFINITY;
  private long bestStep;
  private long evalStep;
  private double evalLoss = Double.NaN;

  /** Step {@code step} evaluated to {@code loss}; whether that is a new best. */
  boolean note(long step, double loss) {
    evalStep = step;
    evalLoss = loss;
    if (!(loss < best)) return false;
    best = loss;
    bestStep = step;
    return true;
  }

  /** The eval loss measured at {@code step}, or null when that step did not evaluate. */
  Double lossAt(long step) { return step == evalStep && step > 0 ? evalLoss : null; }

  /** The best so far as a checkpoint recorded it ({@link #record}); none when it recorded none. */
  void restore(dev.weft.checkpoint.Checkpoint c) {
    double loss = c.stateDouble(BEST_LOSS, Double.NaN);
    long step = c.stateLong(BEST_STEP, 0);
    if (Double.isNaN(loss) || step <= 0) return;
    best = loss;
    bestStep = step;
  }

  /** Puts the best so far into a checkpoint's state, when there is one. */
  void record(java.util.Map<String, Object> state) {
    if (bestStep <= 0) return;
    state.put(BEST_LOSS, best);
    state.put(BEST_STEP, bestStep);
  }

  /** The lowest eval loss so far, empty when none. */
  java.util.OptionalDouble bestLoss() { return bestStep > 0 ? java.util.OptionalDouble.of(best) : java.util.OptionalDouble.empty(); }

  /** The step of the best evaluation so far, 0 when none. */
  long bestStep() { return bestStep; }

  /** Whether {@code step} is the best evaluation so far. */
  boolean isBest(long step) { return step > 0 && step == bestStep; }
}
