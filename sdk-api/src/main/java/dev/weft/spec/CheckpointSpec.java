package dev.weft.spec;

/**
 * Where and how often to save. {@code every = 0} saves nothing. An empty {@code dir} means
 * RUN_DIR/checkpoints. {@code resume} is empty, {@code latest} (the newest complete checkpoint under
 * {@code dir}) or the path of one checkpoint directory; {@code initWeights} is a consolidated
 * safetensors file of model weights to start from. A resume refuses a checkpoint of another model or optimizer
 * unless {@code resetOptimizer} (load the weights, start the optimizer state fresh) or {@code allowPartial} (load
 * the tensors that match, name the ones skipped). {@code key} never holds the key itself: empty
 * (manifests are sealed with an HMAC when {@code WEFT_CHECKPOINT_KEY} is set) or {@code required}
 * (the run refuses to start without that variable), so the secret is never written to a file. {@code saveBest} also
 * saves at each evaluation ({@code train.evalEvery}) whose eval loss is the run's lowest so far, and keeps that
 * checkpoint beside the newest {@code keep} ({@code weft checkpoint export RUN --best}).
 */
public record CheckpointSpec(String dir, int every, int keep, boolean async, String resume, String initWeights,
                             boolean resetOptimizer, boolean allowPartial, String key, boolean saveBest) {
  public static final String KEY_REQUIRED = "required";

  public CheckpointSpec {
    key = key == null ? "" : key;
  }
}
