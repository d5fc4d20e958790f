package dev.weft.elastic;

/** Keys a generation's workers write under its prefix ({@code r/R/}); the agents read them. */
final class WorkerKeys {
  /** The step after which every worker of the generation leaves (set once by the agents). */
  static final String STOP_AT = "stop_at";

  private WorkerKeys() {}

  static String heartbeat(int rank) { return "hb/rank/" + rank; }
  static String step(int rank) { return "step/" + rank; }
  static String started(int rank) { return "t/started/" + rank; }
  static String ready(int rank) { return "t/ready/" + rank; }
  static String firstStep(int rank) { return "t/first/" + rank; }
  /** Written by a worker that was a warm standby: its pid (the record of the handoff). */
  static String standby(int rank) { return "standby/" + rank; }
  static String agentHeartbeat(int nodeRank) { return "hb/node/" + nodeRank; }
}
