package dev.weft.elastic;

import dev.weft.spec.Endpoint;
import dev.weft.comm.CommException;
import dev.weft.comm.NodeAddress;
import dev.weft.comm.Rendezvous;
import dev.weft.comm.RunToken;
import dev.weft.comm.StoreCalls;
import dev.weft.spec.ElasticSpec;
import java.time.Duration;
import java.util.Locale;

/**
 * Where the agents rendezvous ({@code --rdzv-backend}, {@code elastic.rdzvBackend}, {@code PET_RDZV_BACKEND}).
 * {@code c10d}: a TCPStore hosted by the agent on the endpoint's host (nothing else to run, but that host's loss
 * ends the run). {@code etcd}: an etcd cluster the user runs (its v3 HTTP/JSON gateway): every agent and worker is
 * a client, so any node may be lost.
 */
public enum RendezvousBackend {
  C10D(29400),
  ETCD(2379);

  private final int defaultPort;

  RendezvousBackend(int defaultPort) { this.defaultPort = defaultPort; }

  /** The name on the command line and in the spec (one of {@link ElasticSpec#RDZV_BACKENDS}). */
  public String flag() { return name().toLowerCase(Locale.ROOT); }

  /** The endpoint when none is given: this host at the backend's usual port. */
  public Endpoint defaultEndpoint() { return new Endpoint("127.0.0.1", defaultPort); }

  /**
   * This process's view of every run's elastic keys ({@code elastic/} under the run token), each call within
   * {@code callDeadline}. c10d: an agent on the endpoint's own host ({@code mayHost}) hosts the TCPStore (the
   * first of them to bind it); every other process connects, retrying until {@code connectTimeout}. etcd: a
   * client, failing with one line when etcd does not answer within {@code connectTimeout} (etcd is infrastructure
   * that should be up: an agent waits for it as long as for a restarting etcd, not for a node still to come).
   */
  public KeyValue open(Endpoint ep, boolean mayHost, Duration callDeadline, Duration connectTimeout, java.util.function.Consumer<String> say) {
    if (this == ETCD) {
      say.accept("rendezvous through etcd at " + ep + " (every node is its client; any node may be lost)");
      return EtcdKeyValue.connect(ep, RunToken.fromEnv(), callDeadline, connectTimeout).under("elastic/");
    }
    Rendezvous store = hostOrJoin(ep, mayHost && NodeAddress.isThisHost(ep.host()), connectTimeout, say);
    return new StoreKeyValue(store.prefixed("elastic"), new StoreCalls("the rendezvous store at " + ep, callDeadline));
  }

  private static Rendezvous hostOrJoin(Endpoint ep, boolean mayHost, Duration timeout, java.util.function.Consumer<String> say) {
    if (mayHost) {
      try {
        Rendezvous r = Rendezvous.connect(ep.host(), ep.port(), 0, true, timeout);
        say.accept("hosting the rendezvous store on " + ep);
        return r;
      } catch (CommException bound) {
        // taken: another agent on this host hosts it; join it as a client
      }
    } else {
      say.accept("joining the rendezvous store at " + ep + " (hosted by the agent on " + ep.host() + ")");
    }
    return Rendezvous.connect(ep.host(), ep.port(), 1, false, timeout);
  }

  /** {@code c10d} or {@code etcd}; blank is c10d; {@code where} names the flag or field for the error. */
  public static RendezvousBackend parse(String s, String where) {
    return valueOf(ElasticSpec.rdzvBackendName(s, where).toUpperCase(Locale.ROOT));
  }
}
