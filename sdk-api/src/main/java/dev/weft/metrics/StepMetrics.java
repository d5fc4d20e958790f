package dev.weft.metrics;

/** One optimizer step as it appears in {@code metrics.jsonl} (snake_case keys). */
public record StepMetrics(long step, double loss, double lr, double gradNorm, long tokens, double stepMs,
                          double tokensPerS, double modelFlopsPerS) {}
