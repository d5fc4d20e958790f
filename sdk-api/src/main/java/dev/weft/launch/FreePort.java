package dev.weft.launch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A TCP port that was free a moment ago on the loopback interface, for a listener another process binds later (a
 * rendezvous store, an agent). Drawn at random below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range},
 * 32768–60999 by default): a port from that range (what binding port 0 returns) can be handed to any process's outgoing
 * connection between this check and the listener's bind, which a loaded machine running many connections did
 * ("Address already in use" for a bench's store); below it only another listener can take it.
 */
public final class FreePort {
  /** How far below the ephemeral range the draw reaches (and never below 1024). */
  static final int SPAN = 12_000;

  private FreePort() {}

  public static int find() {
    int[] range = drawRange(ephemeralLow());
    for (int i = 0; i < 200 && range[1] > range[0]; i++) {
      int port = ThreadLocalRandom.current().nextInt(range[0], range[1] + 1);
      if (free(port)) return port;
    }
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort(); // nothing free below the ephemeral range: the kernel's choice
    } catch (IOException e) {
      throw new UncheckedIOException("no free TCP port on 127.0.0.1", e);
    }
  }

  /** [lowest, highest] port drawn from, given the ephemeral range's first port. */
  static int[] drawRange(int ephemeralLow) {
    int high = ephemeralLow - 1;
    return new int[] {Math.max(1024, high - SPAN), high};
  }

  /** The first port of the kernel's ephemeral range; 32768 where it cannot be read (not Linux). */
  static int ephemeralLow() {
    // a reader, not Files.readString: a /proc file reports size 0, and readString then returned one byte ("3")
    try (var in = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      return Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32768;
    }
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true); // a listener's bind ignores TIME_WAIT, as the store's does
      s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
