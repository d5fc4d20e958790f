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
import java.util.function.Consumer;

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

  /** What an agent opened: every run's elastic keys, and the run token they live under ("" for none). */
  public record Opened(KeyValue kv, String token) {}

  /** As {@link #open(Endpoint, boolean, String, boolean, Duration, Duration, Consumer)} with {@code WEFT_RUN_TOKEN}, minting none. */
  public KeyValue open(Endpoint ep, boolean mayHost, Duration callDeadline, Duration connectTimeout, Consumer<String> say) {
    return open(ep, mayHost, RunToken.fromEnv(), false, callDeadline, connectTimeout, say).kv();
  }

  /**
   * This process's view of every run's elastic keys ({@code elastic/} under the run token), each call within
   * {@code callDeadline}. c10d: an agent on the endpoint's own host ({@code mayHost}) hosts the TCPStore (the
   * first of them to bind it); every other process connects, retrying until {@code connectTimeout}. etcd: a
   * client, failing with one line when etcd does not answer within {@code connectTimeout} (etcd is infrastructure
   * that should be up: an agent waits for it as long as for a restarting etcd, not for a node still to come).
   * {@code token}: the run token ("" for none); with {@code mint} and none, the agent that hosts the c10d store
   * makes the run a fresh one and prints it for the other nodes (which must be given it; see docs/security.md).
   */
  public Opened open(Endpoint ep, boolean mayHost, String token, boolean mint, Duration callDeadline, Duration connectTimeout,
                     Consumer<String> say) {
    if (this == ETCD) {
      say.accept("rendezvous through etcd at " + ep + " (every node is its client; any node may be lost)");
      return new Opened(EtcdKeyValue.connect(ep, token, callDeadline, connectTimeout).under("elastic/"), token);
    }
    String ifHosting = token.isEmpty() && mint ? RunToken.generate() : token;
    Joined j = hostOrJoin(ep, mayHost && NodeAddress.isThisHost(ep.host()), ifHosting, token, connectTimeout, say);
    if (!j.token().equals(token)) {
      say.accept("no " + RunToken.ENV + " was given, so this run has a new one: start the other nodes with " + RunToken.ENV + "="
          + j.token() + " in their environment (docs/security.md)");
    }
    StoreCalls calls = new StoreCalls("the rendezvous store at " + ep, callDeadline,
        "the rendezvous host " + ep + " is gone; use rdzvBackend etcd to survive it");
    return new Opened(new StoreKeyValue(j.store().prefixed("elastic"), calls), j.token());
  }

  private record Joined(Rendezvous store, String token) {}

  private static Joined hostOrJoin(Endpoint ep, boolean mayHost, String hostToken, String joinToken, Duration timeout,
                                   Consumer<String> say) {
    if (mayHost) {
      try {
        Rendezvous r = Rendezvous.connect(ep.host(), ep.port(), 0, true, timeout, null, hostToken);
        say.accept("hosting the rendezvous store on " + ep);
        return new Joined(r, hostToken);
      } catch (CommException bound) {
        // taken: another agent on this host hosts it; join it as a client
      }
    } else {
      say.accept("joining the rendezvous store at " + ep + " (hosted by the agent on " + ep.host() + ")");
    }
    return new Joined(Rendezvous.connect(ep.host(), ep.port(), 1, false, timeout, null, joinToken), joinToken);
  }

  /** {@code c10d} or {@code etcd}; blank is c10d; {@code where} names the flag or field for the error. */
  public static RendezvousBackend parse(String s, String where) {
    return valueOf(ElasticSpec.rdzvBackendName(s, where).toUpperCase(Locale.ROOT));
  }
}
