package dev.weft.spec;

/**
 * The optimisation itself: how long, how big a batch, which optimizer and learning-rate schedule;
 * {@code evalEvery} steps (0: never) the loss on the held-out split ({@code data.validation}); {@code lora}, low-rank
 * adapters instead of a full fine-tune; {@code objective}, what a step minimises
 * ({@link TrainObjective}), with {@code dpo} its settings for preference pairs; {@code lossChunk}, the tokens per chunk
 * of the output head and its cross-entropy (0: the whole micro-batch's logits at once).
 */
public record TrainSpec(int steps, int globalBatch, long seed, double lr, double minLr, int warmup,
                        double clipGradNorm, double weightDecay, String optimizer, double beta1, double beta2,
                        boolean recompute, int logEvery, int evalEvery, LoraSpec lora, String objective, DpoSpec dpo,
                        int lossChunk) {
  public TrainSpec {
    lora = lora == null ? LoraSpec.off() : lora;
    objective = objective == null ? TrainObjective.LM.spelling() : objective;
    dpo = dpo == null ? DpoSpec.defaults() : dpo;
  }

  /** Whether the steps optimise DPO over preference pairs. */
  public boolean dpoObjective() { return TrainObjective.of(objective) == TrainObjective.DPO; }
}
