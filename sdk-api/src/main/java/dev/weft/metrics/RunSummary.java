package dev.weft.metrics;

import java.util.Map;

/**
 * {@code summary.json}: what a run did, in one object. {@code memory} is rank 0's bytes of
 * parameters, gradients and optimizer state as held between steps, and its peak resident set size.
 */
public record RunSummary(String status, long steps, int worldSize, Map<String, Integer> mesh, double initialLoss,
                         double finalLoss, double tokensPerS, double stepMsMedian, double modelFlopsPerS, double wallS,
                         boolean replicasConsistent, long parameters, String precision, int zero, Memory memory,
                         long skippedSteps, String error) {
  /** Bytes per rank. */
  public record Memory(long parameters, long gradients, long optimizerState, long peakRss) {}
}
