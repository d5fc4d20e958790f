package dev.weft.spec;

/**
 * Observability: the Prometheus port ({@code 0} = off; local rank r serves on port + r) and the
 * address it listens on ({@code bind}: loopback by default; {@code 0.0.0.0} to be scraped from
 * other machines, as the Kubernetes manifests set through {@code WEFT_METRICS_BIND}).
 */
public record MetricsSpec(int port, String bind) {
  public static final String LOOPBACK = "127.0.0.1";

  public MetricsSpec {
    if (bind == null || bind.isBlank()) bind = LOOPBACK;
  }
}
