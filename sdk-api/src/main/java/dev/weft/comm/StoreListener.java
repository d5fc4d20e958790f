package dev.weft.comm;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the store host listens: on the address the store is named by, when that address is this
 * machine's (loopback for local runs, the node's own address for multi-host runs). A name that
 * resolves elsewhere (a Kubernetes Service's cluster IP) leaves libtorch's default: every interface.
 */
final class StoreListener {
  private static final Logger log = LoggerFactory.getLogger(StoreListener.class);

  private StoreListener() {}

  /** A descriptor listening on {@code host:port} only, or empty to let libtorch listen on every interface. */
  static OptionalInt bindTo(String host, int port) {
    InetAddress addr;
    try {
      addr = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      return OptionalInt.empty(); // the store's own connect names the problem
    }
    if (!isThisMachine(addr)) {
      log.info("the rendezvous store name {} resolves to {}, not an address of this machine: listening on every interface", host, addr);
      return OptionalInt.empty();
    }
    try {
      OptionalInt fd = ListeningSocket.bind(addr, port);
      if (fd.isEmpty()) log.warn("cannot hand a bound socket to the store on this OS: it listens on every interface");
      return fd;
    } catch (IOException e) {
      throw new CommException("cannot listen on " + addr.getHostAddress() + ":" + port + " for the rendezvous store: " + e.getMessage()
          + " (is the port free? set MASTER_PORT to another one)", e);
    }
  }

  static boolean isThisMachine(InetAddress addr) {
    if (addr.isLoopbackAddress()) return true;
    try {
      return NetworkInterface.getByInetAddress(addr) != null;
    } catch (SocketException e) {
      return false;
    }
  }
}
