package dev.weft.spec;

/**
 * Where a run's records for people go besides {@code metrics.jsonl}: {@code tensorboard} is the directory of
 * TensorBoard event files rank 0 writes ({@code ""}: {@code RUN_DIR/tensorboard}; a relative path is under the run
 * directory; {@code off}: none).
 */
public record TrackingSpec(String tensorboard) {
  public static final String OFF = "off";
  public static final String DEFAULT_DIR = "tensorboard";

  public TrackingSpec {
    if (tensorboard == null) tensorboard = "";
  }

  public boolean tensorboardOn() { return !OFF.equals(tensorboard.trim()); }
}
