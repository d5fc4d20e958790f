package dev.weft.metrics;

import java.util.Map;

/**
 * {@code summary.json}: what a run did, in one object, across resumes and generations: {@code steps} is
 * the last step reached and {@code initialLoss} the loss of step 1 (of this attempt's first step only
 * when no record of step 1 is left). {@code memory} is rank 0's bytes of
 * parameters, gradients and optimizer state as held between steps, and its peak resident set size.
 * {@code restarts} and {@code elastic} are filled by elastic runs (0 and null otherwise).
 */
public record RunSummary(String status, long steps, int worldSize, Map<String, Integer> mesh, double initialLoss,
                         double finalLoss, double tokensPerS, double stepMsMedian, double modelFlopsPerS, double wallS,
                         boolean replicasConsistent, long parameters, String precision, int zero, Memory memory,
                         long skippedSteps, String error, int restarts, Map<String, Object> elastic) {
  /** This summary with an elastic run's restart count and membership history (generations, recovery seconds). */
  public RunSummary withElastic(int restarts, Map<String, Object> elastic) {
    return new RunSummary(status, steps, worldSize, mesh, initialLoss, finalLoss, tokensPerS, stepMsMedian, modelFlopsPerS,
        wallS, replicasConsistent, parameters, precision, zero, memory, skippedSteps, error, restarts, elastic);
  }

  /** This summary with whole-run figures an elastic run knows only at its end (step 1's loss, wall time since the first generation). */
  public RunSummary withRunTotals(double initialLoss, double wallS) {
    return new RunSummary(status, steps, worldSize, mesh, initialLoss, finalLoss, tokensPerS, stepMsMedian, modelFlopsPerS,
        wallS, replicasConsistent, parameters, precision, zero, memory, skippedSteps, error, restarts, elastic);
  }

  /**
   * Bytes per rank; {@code residentAtStart}: the process's resident set as its first step began (the runtime, the
   * weights, the optimizer's state: what the steps' activations come on top of; 0 where not measured); {@code
   * device}: the CUDA caching allocator's figures, absent on CPU.
   */
  public record Memory(long parameters, long gradients, long optimizerState, long peakRss,
                       @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_DEFAULT)
                       long residentAtStart,
                       @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                       DeviceMemory device) {
    public Memory(long parameters, long gradients, long optimizerState, long peakRss) {
      this(parameters, gradients, optimizerState, peakRss, 0, null);
    }

    public Memory(long parameters, long gradients, long optimizerState, long peakRss, DeviceMemory device) {
      this(parameters, gradients, optimizerState, peakRss, 0, device);
    }
  }
}
