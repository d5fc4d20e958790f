package dev.weft.spec;

/**
 * Where a run's records for people go besides {@code metrics.jsonl}: {@code tensorboard} is the directory of
 * TensorBoard event files rank 0 writes ({@code ""}: {@code RUN_DIR/tensorboard}; a relative path is under the run
 * directory; a URI such as {@code s3://bucket/prefix}: written under {@code RUN_DIR/tensorboard} and each file copied
 * there once closed, a new one begun every two minutes; {@code off}: none).
 */
public record TrackingSpec(String tensorboard) {
  public static final String OFF = "off";
  public static final String DEFAULT_DIR = "tensorboard";

  public TrackingSpec {
    if (tensorboard == null) tensorboard = "";
    if (tensorboard.equals("false")) tensorboard = OFF; // an unquoted YAML `off` arrives as the boolean false
  }

  public boolean tensorboardOn() { return !OFF.equals(tensorboard.trim()); }
}
