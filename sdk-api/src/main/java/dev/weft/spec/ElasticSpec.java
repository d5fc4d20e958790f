package dev.weft.spec;

/** Elastic membership: between {@code minNodes} and {@code maxNodes} nodes, at most {@code maxRestarts} restarts. */
public record ElasticSpec(boolean enabled, int minNodes, int maxNodes, int maxRestarts, int failureTimeoutSeconds) {}
