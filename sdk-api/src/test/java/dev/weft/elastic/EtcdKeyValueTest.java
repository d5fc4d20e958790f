package dev.weft.elastic;

import dev.weft.spec.Endpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.comm.CommException;
import dev.weft.comm.StoreCalls;
import dev.weft.launch.FreePort;
import dev.weft.testing.Etcd;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link EtcdKeyValue} against a real etcd (Debian's etcd-server), started per test on free ports. */
class EtcdKeyValueTest {
  private static final Duration DEADLINE = Duration.ofSeconds(10);
  @TempDir Path dir;
  private Etcd etcd;

  @BeforeAll
  static void needsEtcd() { assumeTrue(Etcd.available(), Etcd.unavailableReason()); }

  @AfterEach
  void stop() {
    if (etcd != null) etcd.close();
  }

  private KeyValue client(String token) {
    return EtcdKeyValue.connect(Endpoint.parse(etcd.endpoint()), token, DEADLINE, Duration.ofSeconds(30));
  }

  @Test
  void setGetAddAndSetIfAbsentBehaveAsTheStoreDoes() {
    etcd = Etcd.start(dir);
    KeyValue kv = client("").under("run/");
    assertThat(kv.getOrNull("missing")).isNull();
    kv.set("a", "1");
    kv.set("empty", "");
    assertThat(kv.getOrNull("a")).isEqualTo("1");
    assertThat(kv.getOrNull("empty")).isEmpty();
    assertThat(kv.add("n", 0)).isZero();
    assertThat(kv.add("n", 2)).isEqualTo(2);
    assertThat(kv.add("n", 3)).isEqualTo(5);
    assertThat(kv.add("n", 0)).isEqualTo(5);
    assertThat(kv.setIfAbsent("first", "x")).isEqualTo("x");
    assertThat(kv.setIfAbsent("first", "y")).isEqualTo("x");
    kv.set("n", "10"); // a set behind the counter's back: the next add still counts from the stored value
    assertThat(kv.add("n", 1)).isEqualTo(11);
  }

  @Test
  void concurrentAddsFromSeveralClientsAreNeverLost() throws Exception {
    etcd = Etcd.start(dir);
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      KeyValue kv = client("");
      all.add(CompletableFuture.runAsync(() -> {
        for (int i = 0; i < 40; i++) kv.add("counter", 1);
      }));
    }
    for (var f : all) f.get(120, TimeUnit.SECONDS);
    assertThat(client("").add("counter", 0)).isEqualTo(120);
  }

  @Test
  void runsWithDifferentTokensDoNotSeeEachOthersKeys() {
    etcd = Etcd.start(dir);
    client("0123456789abcdef0123").set("open", "7");
    assertThat(client("0123456789abcdef0123").getOrNull("open")).isEqualTo("7");
    assertThat(client("fedcba9876543210fedc").getOrNull("open")).isNull();
    assertThat(client("").getOrNull("open")).isNull();
  }

  @Test
  void noEtcdAtTheEndpointIsOneLineWithinTheConnectTimeout() {
    Endpoint nobody = new Endpoint("127.0.0.1", FreePort.find());
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> EtcdKeyValue.connect(nobody, "", DEADLINE, Duration.ofSeconds(2)))
        .isInstanceOf(CommException.class)
        .hasMessage("etcd at " + nobody + " did not answer within 2 s; start etcd there (see docs/elastic.md) or fix"
            + " --rdzv-endpoint / elastic.rdzvEndpoint");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(10);
  }

  @Test
  void etcdGoneMidRunFailsTheNextCallWithinItsDeadlineAndEveryCallAfter() {
    etcd = Etcd.start(dir);
    KeyValue kv = EtcdKeyValue.connect(Endpoint.parse(etcd.endpoint()), "", Duration.ofSeconds(2), Duration.ofSeconds(30));
    kv.add("hb", 1);
    etcd.close();
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> kv.add("hb", 1)).isInstanceOf(StoreCalls.StoreUnreachableException.class)
        .hasMessageContaining("etcd at " + etcd.endpoint() + " did not answer add 'hb' within 2 s: this node is cut off");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(8);
    assertThatThrownBy(() -> kv.getOrNull("x")).isInstanceOf(StoreCalls.StoreUnreachableException.class);
  }

  @Test
  void twoNodesRendezvousThroughEtcd() throws Exception {
    etcd = Etcd.start(dir);
    var settings = new RendezvousRound.Settings(2, Duration.ofSeconds(60), Duration.ofSeconds(60), Duration.ofMillis(20),
        n -> Math.min(n, 2));
    var a = CompletableFuture.supplyAsync(() -> new RendezvousRound(client("").under("t/"), settings, System::nanoTime).join("a"));
    var b = CompletableFuture.supplyAsync(() -> new RendezvousRound(client("").under("t/"), settings, System::nanoTime).join("b"));
    var ma = a.get(60, TimeUnit.SECONDS);
    var mb = b.get(60, TimeUnit.SECONDS);
    assertThat(ma.nodeIds()).hasSize(2).containsExactlyInAnyOrder("a", "b");
    assertThat(mb.nodeIds()).isEqualTo(ma.nodeIds());
    assertThat(ma.nodeRank() + mb.nodeRank()).isEqualTo(1);
  }
}
