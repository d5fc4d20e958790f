package dev.weft.k8s.render;

import dev.weft.k8s.spec.K8sSpec;
import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.List;

/**
 * Every port a run's ranks use, derived once from the spec: the container ports, the Service, the
 * rendezvous env (MASTER_PORT, PET_MASTER_PORT, elasticPolicy.rdzvPort) and the NetworkPolicy all read
 * it. Pure.
 *
 * <p>{@code store}: the one fixed port peers dial. Fixed-size runs: rank 0's TCPStore (MASTER_PORT).
 * Elastic runs: the agents' rendezvous store (the c10d endpoint); each generation's own store then
 * listens on a port its host picks. {@code metrics}: local rank r serves Prometheus on {@code metrics + r}.
 *
 * <p>Ports not listed, on purpose: Gloo's TCP transport binds every pair's listening socket to port 0, so
 * the kernel picks it from the pod's ephemeral range (net.ipv4.ip_local_port_range, which a cluster may
 * change per pod), and elastic generations pick a free port the same way. Peers are therefore admitted
 * on every TCP port, but only from the run's own pods (see {@link SupportObjects#networkPolicy}).
 */
public record RankPorts(int store, int metrics, int metricsCount) {
  public RankPorts {
    if (store >= metrics && store < metrics + metricsCount) {
      throw new SpecException("metrics.port", metrics + " (local ranks serve on " + metrics + ".." + (metrics + metricsCount - 1)
          + ") overlaps deployment.port " + store + "; move one of them");
    }
  }

  public static RankPorts of(K8sSpec ks) {
    return new RankPorts(ks.deployment().port(), ks.metricsPort(), ks.procsPerNode());
  }

  /** The metrics port of local rank {@code r}. */
  public int metrics(int localRank) { return metrics + localRank; }

  /** Every metrics port, local rank 0 first. */
  public List<Integer> metricsPorts() {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < metricsCount; r++) out.add(metrics(r));
    return out;
  }

  /** Every fixed port a pod listens on: the store first, then the metrics ports. */
  public List<Integer> listening() {
    List<Integer> out = new ArrayList<>(List.of(store));
    out.addAll(metricsPorts());
    return out;
  }
}
