package dev.weft.spec;

/**
 * {@code elastic.*}: the node range, restarts allowed, and failure detection: each agent and worker
 * beats every {@code heartbeatSeconds}; a peer silent for {@code failureTimeoutSeconds} is lost, and a
 * store call unanswered for that long means this node is cut off. {@code rdzvBackend} ({@code c10d} or
 * {@code etcd}) and {@code rdzvEndpoint} (HOST:PORT, "" for the backend's default) say where agents rendezvous.
 */
public record ElasticSpec(boolean enabled, int minNodes, int maxNodes, int maxRestarts, int failureTimeoutSeconds,
                          double heartbeatSeconds, String rdzvBackend, String rdzvEndpoint) {}
