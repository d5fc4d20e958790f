package dev.weft.spec;

import java.util.List;
import java.util.Locale;

/**
 * {@code elastic.*}: the node range, restarts allowed, and failure detection: each agent and worker
 * beats every {@code heartbeatSeconds}; a peer silent for {@code failureTimeoutSeconds} is lost, and a
 * store call unanswered for that long means this node is cut off. {@code rdzvBackend} ({@code c10d} or
 * {@code etcd}) and {@code rdzvEndpoint} (HOST:PORT, "" for the backend's default) say where agents rendezvous.
 * {@code standby}: warm worker JVMs each agent keeps started (libtorch loaded) to take over a rank at once; 0: none.
 * {@code joinWindowSeconds}: how long a rendezvous round with at least {@code minNodes} but fewer than {@code maxNodes}
 * stays open after the last join before it seals (a round of {@code maxNodes} seals at once); pods a scheduler starts
 * seconds apart need more than the default.
 */
public record ElasticSpec(boolean enabled, int minNodes, int maxNodes, int maxRestarts, int failureTimeoutSeconds,
                          double heartbeatSeconds, String rdzvBackend, String rdzvEndpoint, int standby,
                          double joinWindowSeconds) {
  /** The rendezvous backends' names, in one place; {@code dev.weft.elastic.RendezvousBackend} has one constant per name. */
  public static final List<String> RDZV_BACKENDS = List.of("c10d", "etcd");

  /** The backend {@code s} names ({@code c10d} or {@code etcd}; blank is c10d); {@code where} names the flag or field for the error. */
  public static String rdzvBackendName(String s, String where) {
    if (s == null || s.isBlank()) return RDZV_BACKENDS.get(0);
    String name = s.trim().toLowerCase(Locale.ROOT);
    if (RDZV_BACKENDS.contains(name)) return name;
    throw new SpecException(where, "'" + s + "' is not a rendezvous backend; use one of " + String.join(", ", RDZV_BACKENDS));
  }
}
