package dev.weft.comm;

import dev.weft.error.WeftException;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * This host's address, for binding (Gloo, the store) and for telling peers where to reach us. In order:
 * an explicit address ({@code --node-addr}); {@code WEFT_NODE_ADDR}; {@code POD_IP} (Kubernetes downward
 * API); else the local address the kernel would use to reach the peer (the master or rendezvous
 * endpoint). 127.0.0.1 only when that peer is itself on loopback: a single-host run.
 */
public final class NodeAddress {
  public static final String ENV = "WEFT_NODE_ADDR";
  public static final String POD_IP = "POD_IP";
  public static final String LOOPBACK = "127.0.0.1";

  /** Finds the local source address for packets to a peer (the routing table's answer). */
  @FunctionalInterface
  public interface Router {
    InetAddress sourceFor(InetAddress peer);
  }

  private NodeAddress() {}

  /** Resolves with this process's environment and the kernel's routing table. */
  public static String resolve(String explicit, String peerHost) {
    return resolve(explicit, System.getenv(), peerHost, NodeAddress::routeTo);
  }

  /**
   * Pure resolution: explicit, env ({@code WEFT_NODE_ADDR}, {@code POD_IP}), then the route to {@code peerHost};
   * a loopback peer (or none) means a single-host run on 127.0.0.1.
   */
  public static String resolve(String explicit, Map<String, String> env, String peerHost, Router router) {
    String given = firstSet(explicit, env.get(ENV), env.get(POD_IP));
    if (given != null) return given;
    if (peerHost == null || peerHost.isBlank()) return LOOPBACK;
    InetAddress peer = lookup(peerHost);
    if (peer.isLoopbackAddress()) return LOOPBACK;
    InetAddress src = router.sourceFor(peer);
    if (src == null || src.isAnyLocalAddress()) {
      throw new WeftException("no local address routes to " + peerHost + "; pass --node-addr (or set " + ENV + ") to this host's address");
    }
    return src.getHostAddress();
  }

  /** The local address the kernel picks to reach {@code peer}: a UDP connect sets the route, no packet is sent. */
  public static InetAddress routeTo(InetAddress peer) {
    try (DatagramSocket s = new DatagramSocket()) {
      s.connect(new InetSocketAddress(peer, 9));
      return s.getLocalAddress();
    } catch (SocketException e) {
      throw new WeftException("no route from this host to " + peer.getHostAddress() + " (" + e.getMessage()
          + "); pass --node-addr (or set " + ENV + ") to this host's address");
    }
  }

  /** Whether {@code host} names this machine: loopback, or an address on one of its interfaces. */
  public static boolean isThisHost(String host) {
    InetAddress a = lookup(host);
    if (a.isLoopbackAddress() || a.isAnyLocalAddress()) return true;
    try {
      return NetworkInterface.getByInetAddress(a) != null;
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether {@code host} is a loopback name or address (a single-host run). */
  public static boolean isLoopback(String host) { return lookup(host).isLoopbackAddress(); }

  private static InetAddress lookup(String host) {
    try {
      return InetAddress.getByName(host.trim());
    } catch (UnknownHostException e) {
      throw new WeftException("cannot resolve host '" + host + "'; check the address or its DNS name");
    }
  }

  private static String firstSet(String... values) {
    for (String v : values) if (v != null && !v.isBlank()) return v.trim();
    return null;
  }
}
