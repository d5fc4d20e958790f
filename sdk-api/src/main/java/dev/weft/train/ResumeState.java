package dev.weft.train;

import dev.weft.checkpoint.Checkpoint;
import dev.weft.checkpoint.CheckpointException;
import dev.weft.checkpoint.CorruptCheckpointException;
import dev.weft.checkpoint.Manifest;
import dev.weft.spec.TrainingSpec;

/**
 * What a resumed run takes from its checkpoint besides tensors, every field type-checked. Reading it
 * is also the resolver's check, so a checkpoint whose state is damaged is skipped like a bad shard. {@code scheduleSteps}:
 * the steps the learning-rate schedule was made for, which a resume keeps unless told to stretch it.
 */
record ResumeState(long step, long optimizerSteps, double lossScale, int goodSteps, int globalBatch, long scheduleSteps,
                   long dataSkip) {
  /** State key: the steps of data loss-spike rollbacks passed over, so the data position is step + this (0 when absent). */
  static final String DATA_SKIP = "data_skip";

  static ResumeState of(Checkpoint c, double defaultScale) {
    long good = c.stateLong("good_steps", 0);
    long dataSkip = c.stateLong(DATA_SKIP, 0);
    if (dataSkip < 0) {
      throw new CorruptCheckpointException(c.dir().resolve(Manifest.FILE_NAME), "state holds data_skip " + dataSkip
          + "; expected a non-negative count of steps");
    }
    long optimizerSteps = c.stateLong("optimizer_steps", c.step());
    double scale = c.stateDouble("loss_scale", defaultScale);
    if (good < 0 || good > Integer.MAX_VALUE || optimizerSteps < 0 || scale <= 0) {
      throw new CorruptCheckpointException(c.dir().resolve(Manifest.FILE_NAME), "state holds good_steps " + good
          + ", optimizer_steps " + optimizerSteps + ", loss_scale " + scale + "; expected non-negative counts and a positive scale");
    }
    TrainingSpec saved = savedSpec(c);
    long scheduleSteps = c.stateLong("schedule_steps", saved.train().steps()); // older checkpoints: the saved spec's steps
    return new ResumeState(c.step(), optimizerSteps, scale, (int) good, saved.train().globalBatch(), scheduleSteps, dataSkip);
  }

  private static TrainingSpec savedSpec(Checkpoint c) {
    try {
      return c.meta().trainingSpec();
    } catch (CheckpointException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CorruptCheckpointException(c.dir().resolve(Manifest.FILE_NAME), "holds a spec that does not read back: " + e.getMessage());
    }
  }
}
