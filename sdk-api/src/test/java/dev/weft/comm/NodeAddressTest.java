package dev.weft.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.error.WeftException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The order of address sources, and when 127.0.0.1 is the answer. */
class NodeAddressTest {
  private final List<InetAddress> routed = new ArrayList<>();

  private NodeAddress.Router router(String answer) {
    return peer -> {
      routed.add(peer);
      try {
        return InetAddress.getByName(answer);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    };
  }

  @Test
  void explicitBeatsEnvironmentWhichBeatsPodIpWhichBeatsTheRoute() {
    Map<String, String> both = Map.of("WEFT_NODE_ADDR", "10.0.0.2", "POD_IP", "10.0.0.3");
    assertThat(NodeAddress.resolve("10.0.0.1", both, "10.9.9.9", router("10.0.0.4"))).isEqualTo("10.0.0.1");
    assertThat(NodeAddress.resolve(null, both, "10.9.9.9", router("10.0.0.4"))).isEqualTo("10.0.0.2");
    assertThat(NodeAddress.resolve(" ", Map.of("POD_IP", "10.0.0.3"), "10.9.9.9", router("10.0.0.4"))).isEqualTo("10.0.0.3");
    assertThat(routed).isEmpty();
    assertThat(NodeAddress.resolve(null, Map.of(), "10.9.9.9", router("10.0.0.4"))).isEqualTo("10.0.0.4");
    assertThat(routed).extracting(InetAddress::getHostAddress).containsExactly("10.9.9.9");
  }

  @Test
  void aLoopbackPeerOrNoPeerIsASingleHostRun() {
    assertThat(NodeAddress.resolve(null, Map.of(), "127.0.0.1", router("10.0.0.4"))).isEqualTo("127.0.0.1");
    assertThat(NodeAddress.resolve(null, Map.of(), "localhost", router("10.0.0.4"))).isEqualTo("127.0.0.1");
    assertThat(NodeAddress.resolve(null, Map.of(), null, router("10.0.0.4"))).isEqualTo("127.0.0.1");
    assertThat(routed).isEmpty();
  }

  @Test
  void noUsableRouteIsAOneLineErrorNamingTheFlag() {
    assertThatThrownBy(() -> NodeAddress.resolve(null, Map.of(), "10.9.9.9", router("0.0.0.0")))
        .isInstanceOf(WeftException.class).hasMessageContaining("--node-addr").hasMessageContaining("10.9.9.9");
  }

  @Test
  void theKernelRoutesLoopbackToLoopbackAndLoopbackIsThisHost() throws Exception {
    assertThat(NodeAddress.routeTo(InetAddress.getByName("127.0.0.1")).isLoopbackAddress()).isTrue();
    assertThat(NodeAddress.isThisHost("127.0.0.1")).isTrue();
    assertThat(NodeAddress.isLoopback("localhost")).isTrue();
    assertThat(NodeAddress.isLoopback("10.231.255.254")).isFalse();
    assertThat(NodeAddress.isThisHost("10.231.255.254")).isFalse();
  }

  @Test
  void aRankGivenAnAddressThatIsNotThisHostsSaysSoAndNamesTheFlag() {
    Rendezvous store = Rendezvous.connect("127.0.0.1", dev.weft.launch.FreePort.find(), 0, true, java.time.Duration.ofSeconds(20),
        "10.231.255.254");
    assertThat(store.localAddress()).isEqualTo("10.231.255.254");
    assertThatThrownBy(() -> new dev.weft.comm.gloo.GlooBackend().createGroup(store, "bind-test", 0, 2, java.time.Duration.ofSeconds(5)))
        .isInstanceOf(CommException.class).hasMessageContaining("cannot bind to 10.231.255.254").hasMessageContaining("--node-addr");
  }
}
