package dev.weft.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.launch.FreePort;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.bytedeco.javacpp.chrono.Milliseconds;
import org.bytedeco.pytorch.StringVector;
import org.bytedeco.pytorch.TCPStore;
import org.bytedeco.pytorch.TCPStoreOptions;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The store host listens on loopback only, and the run token separates runs' keys. */
class StoreIsolationTest {
  /** Local addresses (as /proc/net/tcp* write them) with a socket listening on {@code port}. */
  private static List<String> listeners(int port) throws Exception {
    String portHex = String.format(Locale.ROOT, ":%04X", port);
    List<String> out = new java.util.ArrayList<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      for (String line : Files.readAllLines(Path.of(table))) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 3 && f[1].endsWith(portHex) && "0A".equals(f[3])) out.add(f[1]);
      }
    }
    return out;
  }

  @Test
  void hostListensOnLoopbackOnlyAndTokensSeparateKeys() throws Exception {
    int port = FreePort.find();
    String token = RunToken.generate();
    Rendezvous host = Rendezvous.connect("127.0.0.1", port, 0, true, Duration.ofSeconds(60), "127.0.0.1", token);
    InetAddress loopback = InetAddress.getByName("127.0.0.1");
    assertThat(listeners(port)).hasSize(1).allSatisfy(l -> assertThat(ListeningSocket.isAddress(l, loopback)).as(l).isTrue());

    Rendezvous peer = Rendezvous.connect("127.0.0.1", port, 1, false, Duration.ofSeconds(60), "127.0.0.1", token);
    assertThatThrownBy(() -> Rendezvous.connect("127.0.0.1", port, 2, false, Duration.ofSeconds(60), "127.0.0.1", ""))
        .hasMessageStartingWith(RunToken.ENV + ": "); // a node without the token is told so at once
    assertThatThrownBy(() -> Rendezvous.connect("127.0.0.1", port, 2, false, Duration.ofSeconds(60), "127.0.0.1", RunToken.generate()))
        .hasMessageStartingWith(RunToken.ENV + ": ").hasMessageContaining("another run token"); // nor one with another
    TCPStoreOptions o = new TCPStoreOptions(); // a raw client, which knows no prefix
    o.port((short) port).isServer(false).waitWorkers(false).timeout(new Milliseconds(60_000));
    TCPStore stranger = new TCPStore("127.0.0.1", o);
    host.add("elastic/stop_at", 5);
    host.set("master", "10.0.0.1");
    assertThat(peer.add("elastic/stop_at", 0)).isEqualTo(5);
    assertThat(peer.getString("master")).isEqualTo("10.0.0.1");
    assertThat(stranger.add("elastic/stop_at", 0)).isZero(); // cannot see the run's counter
    stranger.set("master", "evil");                          // and its writes land outside the run's keys
    assertThat(stranger.check(new StringVector("master"))).isTrue(); // (answered after the set: the store holds it)
    assertThat(peer.getString("master")).isEqualTo("10.0.0.1");

    stranger.close();
    peer.close();
    host.close(); // the clients gone, the host's server stops and the socket bound for it is closed with it
    assertThat(listeners(port)).isEmpty();
  }

  @Test
  void hexAddressMatchesProcNetTcp() throws Exception {
    assertThat(ListeningSocket.hexAddress(InetAddress.getByName("127.0.0.1"))).isEqualTo("0100007F");
    assertThat(ListeningSocket.hexAddress(InetAddress.getByName("10.231.0.2"))).isEqualTo("0200E70A");
    assertThat(ListeningSocket.isAddress("0000000000000000FFFF00000100007F:1F90", InetAddress.getByName("127.0.0.1"))).isTrue();
    assertThat(ListeningSocket.isAddress("00000000000000000000000000000000:1F90", InetAddress.getByName("127.0.0.1"))).isFalse();
  }
}
