package dev.weft.train;

import dev.weft.metrics.StepMetrics;

/**
 * Called on rank 0 after every step (progress display, in-process callers). The two {@code onRank*}
 * hooks run on every rank, rank 0 included, for per-worker exporters such as the Prometheus endpoint.
 */
@FunctionalInterface
public interface StepListener {
  void onStep(StepMetrics m, long totalSteps);

  /** Every rank, once its model is built: how many parameters this rank holds. */
  default void onRankStart(int rank, long localParameters) {}

  /** Every rank, after every step. */
  default void onRankStep(int rank, StepMetrics m, long totalSteps) {}

  /**
   * Every rank, at the step boundary after the step's checkpoint (if one was due) is saved. A listener
   * may throw here to end the run at this boundary (an elastic worker leaving to re-rendezvous).
   */
  default void atStepBoundary(int rank, long step) {}

  /** Every rank, once its optimizer exists: bytes it holds between steps (ZeRO shards counted as held). */
  default void onMemory(int rank, long parameterBytes, long gradientBytes, long optimizerBytes) {}

  /** Every rank on a device with a caching allocator (CUDA), after every step: its allocated/reserved/peak bytes. */
  default void onDeviceMemory(int rank, dev.weft.metrics.DeviceMemory m) {}

  /**
   * Every rank of a mixture-of-experts run, after every step: token–expert assignments per expert of the step, summed
   * over the MoE layers, micro-batches and dp ranks (metrics.jsonl's {@code expert_load_E}).
   */
  default void onExpertLoad(int rank, double[] load) {}

  /** Every rank, after each checkpoint save returned (the stall it caused this rank). */
  default void onCheckpointSaved(int rank, long step, java.time.Duration took) {}

  StepListener NONE = (m, n) -> {};
}
