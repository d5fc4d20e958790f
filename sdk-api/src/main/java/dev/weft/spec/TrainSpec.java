package dev.weft.spec;

/**
 * The optimisation itself: how long ({@code steps}, or {@code epochs} passes over the data, from which
 * {@code plan.SpecCheck} derives the steps), how big a batch, which optimizer and learning-rate schedule;
 * {@code evalEvery} steps (0: never) the loss on the held-out data ({@code data.eval} or {@code data.validation}); {@code lora}, low-rank
 * adapters instead of a full fine-tune; {@code objective}, what a step minimises
 * ({@link TrainObjective}), with {@code dpo} its settings for preference pairs and {@code grpo} for RL with rewards ({@link GrpoSpec}). The learning rate: warm-up
 * ({@code warmup} steps, or {@code warmupRatio} of the steps), then {@code schedule} ({@link LrScheduleKind}) down to
 * {@code minLr} (absolute; unset by default) or else {@code minLrRatio × lr}; a resume with other {@code steps} keeps the
 * schedule it started with ({@code resumeSchedule: keep}) or spreads it over the new steps ({@code stretch}). {@code lossSpike}: the loss-spike guard
 * ({@link LossSpikeSpec}, off by default); {@code earlyStopping} ({@link EarlyStoppingSpec}, off by default); {@code lossChunk}, the tokens per chunk of the
 * output head and its cross-entropy (0: the
 * whole micro-batch's logits at once).
 */
public record TrainSpec(int steps, int epochs, int globalBatch, long seed, double lr, Double minLr, double minLrRatio, String schedule,
                        int warmup, double warmupRatio, double decayRatio, String resumeSchedule,
                        double clipGradNorm, double weightDecay, String optimizer, double beta1, double beta2,
                        boolean recompute, int logEvery, int evalEvery, LoraSpec lora, String objective, DpoSpec dpo,
                        LossSpikeSpec lossSpike, EarlyStoppingSpec earlyStopping, int lossChunk, GrpoSpec grpo) {
  public TrainSpec {
    lora = lora == null ? LoraSpec.off() : lora;
    objective = objective == null ? TrainObjective.LM.spelling() : objective;
    dpo = dpo == null ? DpoSpec.defaults() : dpo;
    grpo = grpo == null ? GrpoSpec.defaults() : grpo;
    lossSpike = lossSpike == null ? LossSpikeSpec.off() : lossSpike;
    earlyStopping = earlyStopping == null ? EarlyStoppingSpec.off() : earlyStopping;
    schedule = schedule == null ? LrScheduleKind.COSINE.spelling() : schedule;
    resumeSchedule = resumeSchedule == null ? "keep" : resumeSchedule;
  }

  /** The learning rate the schedule ends at: {@code minLr} when given (absolute), else {@code minLrRatio × lr}. */
  public double finalLr() { return minLr != null ? minLr : minLrRatio * lr; }

  /** Warm-up steps of a run of {@code totalSteps}: {@code warmupRatio} of them when it is above 0, else {@code warmup}. */
  public int warmupSteps(int totalSteps) { return warmupRatio > 0 ? (int) Math.ceil(warmupRatio * totalSteps) : warmup; }

  /** Whether the steps optimise DPO over preference pairs. */
  public boolean dpoObjective() { return TrainObjective.of(objective) == TrainObjective.DPO; }

  /** Whether the steps optimise GRPO over rollouts of prompts scored by rewards. */
  public boolean grpoObjective() { return TrainObjective.of(objective) == TrainObjective.GRPO; }
}
