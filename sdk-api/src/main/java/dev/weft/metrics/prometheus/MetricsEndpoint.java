package dev.weft.metrics.prometheus;

import dev.weft.error.WeftException;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's {@code /metrics} over HTTP: the {@code weft_*} metrics and the JVM's ({@code jvm_*},
 * {@code process_*}). Local rank r serves on {@code metrics.port + r}; port 0 means off. Served by
 * {@link ScrapeServer}, which idle and slow clients cannot block.
 */
public final class MetricsEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

  private final ScrapeServer server;

  private MetricsEndpoint(ScrapeServer server) { this.server = server; }

  /** Environment variable that overrides {@code metrics.port} (set by the Kubernetes manifests). */
  public static final String PORT_ENV = "WEFT_METRICS_PORT";

  /** The base port for {@code spec}: {@code WEFT_METRICS_PORT} when set, else {@code metrics.port}. */
  public static int port(dev.weft.spec.TrainingSpec spec) {
    String env = System.getenv(PORT_ENV);
    if (env == null || env.isBlank()) return spec.metrics().port();
    try {
      return Integer.parseInt(env.trim());
    } catch (NumberFormatException e) {
      throw new WeftException(PORT_ENV + "='" + env + "' is not a port number; set it to a number or unset it", e);
    }
  }

  /** Environment variable that overrides {@code metrics.bind} (the Kubernetes manifests set 0.0.0.0). */
  public static final String BIND_ENV = "WEFT_METRICS_BIND";

  /** The listen address for {@code spec}: {@code WEFT_METRICS_BIND} when set, else {@code metrics.bind}. */
  public static String bind(dev.weft.spec.TrainingSpec spec) {
    String env = System.getenv(BIND_ENV);
    return env == null || env.isBlank() ? spec.metrics().bind() : env.trim();
  }

  /** Starts serving on loopback, or returns {@code null} when {@code basePort} is 0 (off). */
  public static MetricsEndpoint startIfEnabled(WeftMetrics metrics, int basePort, int localRank) {
    return startIfEnabled(metrics, dev.weft.spec.MetricsSpec.LOOPBACK, basePort, localRank);
  }

  /** Starts serving on {@code bind}, or returns {@code null} when {@code basePort} is 0 (off). */
  public static MetricsEndpoint startIfEnabled(WeftMetrics metrics, String bind, int basePort, int localRank) {
    if (basePort <= 0) return null;
    int port = basePort + localRank;
    JvmMetrics.builder().register(metrics.registry());
    try {
      ScrapeServer s = ScrapeServer.start(metrics.registry(), java.net.InetAddress.getByName(bind), port);
      log.info("Prometheus metrics at http://{}:{}/metrics", bind, s.port());
      return new MetricsEndpoint(s);
    } catch (IOException e) {
      throw new WeftException("metrics.port: cannot serve metrics on " + bind + ":" + port + " (metrics.port " + basePort
          + " + local rank " + localRank + "): " + e.getMessage() + "; choose another metrics.port or set it to 0", e);
    }
  }

  public int port() { return server.port(); }

  @Override
  public void close() { server.close(); }
}
