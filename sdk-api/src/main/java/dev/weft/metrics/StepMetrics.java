package dev.weft.metrics;

/**
 * One optimizer step as it appears in {@code metrics.jsonl} (snake_case keys). {@code commMs} is the
 * communication the step waited for (gradient buckets not yet reduced when backward ended, the
 * tensor-parallel collectives — forward ones whole, backward ones where the weight gradients did not
 * hide them — the sequence-parallel partial-gradient sum, and the loss all-reduce), {@code computeMs = stepMs - commMs}, {@code idleMs} the time between the previous step's
 * end and this one's start; {@code peakRssBytes} is this process's peak resident memory. {@code lossScale}
 * is the fp16 loss scale the step used (1 otherwise) and {@code skipped} whether the step was skipped
 * because some rank's gradients overflowed.
 */
public record StepMetrics(long step, double loss, double lr, double gradNorm, long tokens, double stepMs,
                          double tokensPerS, double modelFlopsPerS, double computeMs, double commMs, double idleMs,
                          int worldSize, long peakRssBytes, double lossScale, boolean skipped) {
  /** Without the time split and process figures (they read as 0, world size 1). */
  public StepMetrics(long step, double loss, double lr, double gradNorm, long tokens, double stepMs, double tokensPerS,
                     double modelFlopsPerS) {
    this(step, loss, lr, gradNorm, tokens, stepMs, tokensPerS, modelFlopsPerS, stepMs, 0, 0, 1, 0, 1, false);
  }
}
