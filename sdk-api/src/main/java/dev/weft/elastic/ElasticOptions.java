package dev.weft.elastic;

import dev.weft.spec.Endpoint;
import dev.weft.error.WeftException;
import java.time.Duration;

/**
 * How an elastic agent runs: {@code --nnodes MIN:MAX}, {@code --nproc-per-node}, the rendezvous
 * backend, endpoint and run id, the join window, the failure timeout and how many restarts to allow.
 */
public record ElasticOptions(int minNodes, int maxNodes, int procsPerNode, Endpoint endpoint, String runId,
                             Duration joinWindow, Duration failureTimeout, Duration heartbeat, int maxRestarts,
                             Duration rendezvousTimeout, RendezvousBackend backend) {
  public static final Duration RENDEZVOUS_TIMEOUT = Duration.ofMinutes(10);
  private static final Duration MIN_STEP_TIMEOUT = Duration.ofSeconds(30);

  public ElasticOptions {
    if (minNodes < 1 || maxNodes < minNodes) {
      throw new WeftException("--nnodes " + minNodes + ":" + maxNodes + " is not a range of node counts; use MIN:MAX with 1 ≤ MIN ≤ MAX");
    }
    if (procsPerNode < 1) throw new WeftException("--nproc-per-node " + procsPerNode + " must be at least 1");
    if (runId == null || !runId.matches("[A-Za-z0-9._-]{1,64}")) {
      throw new WeftException("--rdzv-id '" + runId + "' must be 1-64 letters, digits, '.', '_' or '-'");
    }
  }

  /**
   * Options from the command line (or the operator's env) with the spec's {@code elastic.*} detection settings;
   * {@code joinWindow} null: the spec's {@code elastic.joinWindowSeconds}.
   */
  public static ElasticOptions of(dev.weft.spec.TrainingSpec spec, int[] nodes, int procsPerNode, RendezvousBackend backend,
                                  Endpoint endpoint, String runId, Duration joinWindow) {
    var e = spec.elastic();
    Duration window = joinWindow != null ? joinWindow : seconds(e.joinWindowSeconds());
    return new ElasticOptions(nodes[0], nodes[1], procsPerNode, endpoint, runId, window,
        Duration.ofSeconds(e.failureTimeoutSeconds()), heartbeat(e), e.maxRestarts(),
        RENDEZVOUS_TIMEOUT, backend);
  }

  /** How often agents and workers beat ({@code elastic.heartbeatSeconds}). */
  static Duration heartbeat(dev.weft.spec.ElasticSpec e) { return seconds(e.heartbeatSeconds()); }

  /** A setting in (fractional) seconds, to the millisecond. */
  public static Duration seconds(double s) { return Duration.ofMillis(Math.round(s * 1000)); }

  /**
   * The backend and endpoint: the flag (or the operator's variable) when given, else {@code elastic.rdzvBackend} /
   * {@code elastic.rdzvEndpoint}, else c10d on 127.0.0.1 at the backend's usual port (29400, etcd 2379).
   */
  public static RendezvousBackend backend(dev.weft.spec.TrainingSpec spec, String flag, String where) {
    return flag != null && !flag.isBlank() ? RendezvousBackend.parse(flag, where)
        : RendezvousBackend.parse(spec.elastic().rdzvBackend(), "elastic.rdzvBackend");
  }

  public static Endpoint endpoint(dev.weft.spec.TrainingSpec spec, RendezvousBackend backend, String flag) {
    if (flag != null && !flag.isBlank()) return Endpoint.parse(flag, "--rdzv-endpoint");
    String fromSpec = spec.elastic().rdzvEndpoint();
    return fromSpec == null || fromSpec.isBlank() ? backend.defaultEndpoint() : Endpoint.parse(fromSpec, "elastic.rdzvEndpoint");
  }

  public ElasticOptions withMaxRestarts(int restarts) {
    return new ElasticOptions(minNodes, maxNodes, procsPerNode, endpoint, runId, joinWindow, failureTimeout, heartbeat, restarts,
        rendezvousTimeout, backend);
  }

  /**
   * How long a rank's step counter may stand still before the rank counts as hung: six failure timeouts,
   * at least 30 s, because a step or a checkpoint of a large model legitimately takes seconds.
   */
  public Duration stepTimeout() { return stepTimeout(failureTimeout); }

  static Duration stepTimeout(Duration failureTimeout) {
    Duration six = failureTimeout.multipliedBy(6);
    return six.compareTo(MIN_STEP_TIMEOUT) < 0 ? MIN_STEP_TIMEOUT : six;
  }

  /**
   * How long an agent waits for the rendezvous store to answer at start: c10d, the rendezvous timeout (the host
   * agent's node may start later); etcd, six failure timeouts (30 s by default) — enough for etcd to restart,
   * and a wrong endpoint or a missing etcd is reported quickly.
   */
  public Duration storeConnectTimeout() {
    return backend == RendezvousBackend.ETCD ? failureTimeout.multipliedBy(6) : rendezvousTimeout;
  }

  /** {@code "2"} or {@code "1:4"}. */
  public static int[] parseNodes(String s) {
    try {
      String[] p = s.trim().split(":");
      if (p.length == 1) return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[0])};
      if (p.length == 2) return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
    } catch (NumberFormatException ignored) {
      // falls through to the message
    }
    throw new WeftException("--nnodes '" + s + "' is neither N nor MIN:MAX (e.g. 1:2)");
  }
}
