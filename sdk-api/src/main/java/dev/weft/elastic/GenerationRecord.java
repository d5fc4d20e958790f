package dev.weft.elastic;

/**
 * One generation as recorded in the store and in {@code elastic.json}: its size and mesh, why it
 * started, and the timeline of its start (epoch milliseconds; 0 = not yet). {@code closedAtMs} is when
 * the previous generation was declared failed or asked to grow.
 */
public record GenerationRecord(int generation, int nodes, int worldSize, int dp, int microBatches, String cause,
                               String reason, long closedAtMs, long sealedAtMs, long launchedAtMs, long startedAtMs,
                               long readyAtMs, long firstStepAtMs, long firstStep) {
  public GenerationRecord withStart(long startedAtMs, long readyAtMs, long firstStepAtMs, long firstStep) {
    return new GenerationRecord(generation, nodes, worldSize, dp, microBatches, cause, reason, closedAtMs, sealedAtMs,
        launchedAtMs, startedAtMs, readyAtMs, firstStepAtMs, firstStep);
  }

  /**
   * Where the time from the previous generation's end to this one's first step went, in seconds:
   * stop and rendezvous, worker JVM start, mesh + model + checkpoint load, first step (warm-up).
   */
  public record Recovery(double stopAndRendezvousS, double jvmStartS, double buildAndLoadS, double firstStepS, double totalS) {}

  /** Null for the first generation or while the first step has not completed. */
  public Recovery recovery() {
    if (closedAtMs == 0 || firstStepAtMs == 0) return null;
    return new Recovery(s(launchedAtMs - closedAtMs), s(startedAtMs - launchedAtMs), s(readyAtMs - startedAtMs),
        s(firstStepAtMs - readyAtMs), s(firstStepAtMs - closedAtMs));
  }

  private static double s(long ms) { return Math.round(ms / 10.0) / 100.0; }
}
