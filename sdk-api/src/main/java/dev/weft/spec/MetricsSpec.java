package dev.weft.spec;

/** Observability: the Prometheus port ({@code 0} = off; local rank r serves on port + r). */
public record MetricsSpec(int port) {}
