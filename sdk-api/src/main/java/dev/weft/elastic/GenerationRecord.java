package dev.weft.elastic;

/**
 * One generation as recorded in the store and in {@code elastic.json}: its size and mesh, why it
 * started, and the timeline of its start (epoch milliseconds; 0 = not yet). {@code closedAtMs} is when
 * the previous generation was declared failed or asked to grow; {@code failedAtMs} is the last sign of
 * life of what failed (a lost node's last heartbeat seen, a worker's exit), so detection is {@code closedAtMs - failedAtMs}.
 * {@code standbyRanks}: how many of its ranks were warm standbys handed their identity (the rest were new JVMs).
 */
public record GenerationRecord(int generation, int nodes, int worldSize, int dp, int microBatches, String cause,
                               String reason, long failedAtMs, long closedAtMs, long sealedAtMs, long launchedAtMs,
                               long startedAtMs, long readyAtMs, long firstStepAtMs, long firstStep, int standbyRanks) {
  public GenerationRecord withStart(long startedAtMs, long readyAtMs, long firstStepAtMs, long firstStep, int standbyRanks) {
    return new GenerationRecord(generation, nodes, worldSize, dp, microBatches, cause, reason, failedAtMs, closedAtMs,
        sealedAtMs, launchedAtMs, startedAtMs, readyAtMs, firstStepAtMs, firstStep, standbyRanks);
  }

  /**
   * Where the time from the failure (or the previous generation's end) to this one's first step went, in
   * seconds: detection (last sign of life → declared failed), stop and rendezvous, worker JVM start (or a
   * standby's handoff), mesh + model + checkpoint load, first step (warm-up). {@code afterDetectionS}: declared
   * failed → first step; {@code totalS}: the failure → first step, detection included.
   */
  public record Recovery(double detectedS, double stopAndRendezvousS, double jvmStartS, double buildAndLoadS, double firstStepS,
                         double afterDetectionS, double totalS) {}

  /** Null for the first generation or while the first step has not completed. */
  public Recovery recovery() {
    if (closedAtMs == 0 || firstStepAtMs == 0) return null;
    long failed = failedAtMs > 0 ? Math.min(failedAtMs, closedAtMs) : closedAtMs;
    return new Recovery(s(closedAtMs - failed), s(launchedAtMs - closedAtMs), s(startedAtMs - launchedAtMs),
        s(readyAtMs - startedAtMs), s(firstStepAtMs - readyAtMs), s(firstStepAtMs - closedAtMs), s(firstStepAtMs - failed));
  }

  private static double s(long ms) { return Math.round(ms / 10.0) / 100.0; }
}
