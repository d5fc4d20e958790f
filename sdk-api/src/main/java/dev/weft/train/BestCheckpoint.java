package dev.weft.train;

/**
 * Which evaluation is the run's best so far ({@code checkpoint.saveBest}): the lowest eval loss, ties kept at the
 * earlier step. Pure bookkeeping; {@link TrainingCheckpoints} saves and pins the checkpoint it names.
 */
final class BestCheckpoint {
  /** The state key a checkpoint records its step's eval loss under; {@code weft checkpoint export --best} reads it. */
  static final String EVAL_LOSS = dev.weft.checkpoint.CheckpointResolver.EVAL_LOSS;

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

  /** Whether {@code step} is the best evaluation so far. */
  boolean isBest(long step) { return step > 0 && step == bestStep; }
}
