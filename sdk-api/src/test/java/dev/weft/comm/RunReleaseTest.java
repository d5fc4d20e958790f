package dev.weft.comm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.weft.Trainer;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.launch.ThreadedRun;
import dev.weft.testing.LiveThreads;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run inside a JVM that goes on lets go of what it opened: its Gloo groups (worker threads, device loops, sockets)
 * and its store (connections, rank 0's server and port), so fit() called again and again does not pile them up; and
 * a rank that never comes to close makes the others give up within the deadline instead of hanging.
 */
class RunReleaseTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static Trainer tiny(int dp) {
    return Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 16).set("model.config.heads", 2)
        .seqLen(16).globalBatch(4).steps(1).warmup(0).dataParallel(dp);
  }

  @Test
  void repeatedFitsDoNotPileUpThreads() throws Exception {
    assumeThat(LiveThreads.available()).isTrue();
    tiny(2).runDir(dir.resolve("first")).fit(); // loads libtorch and starts its process-wide pools
    int base = LiveThreads.settle(0, 2000);
    long servers = LiveThreads.byName().getOrDefault("pt_tcpstore_uv", 0L);
    int runs = 2;
    for (int i = 0; i < runs; i++) tiny(2).runDir(dir.resolve("run" + i)).fit();
    // without the release each dp2 run leaves 2 ranks x (world + dp group) x 3 Gloo threads and a store server: 13
    int after = LiveThreads.settle(base + runs, 20_000);
    assertThat(after).as("threads after %d more fits (%d after the first): %s", runs, base, LiveThreads.byName())
        .isLessThanOrEqualTo(base + runs);
    assertThat(LiveThreads.byName().getOrDefault("pt_tcpstore_uv", 0L)).as("store servers").isEqualTo(servers);
  }

  @Test
  void closingFreesTheStorePortOnceEveryRankLeft() {
    List<Integer> ports = ThreadedRun.onRanks(2, TIMEOUT, id -> {
      try (Distributed d = Distributed.start(id, new DeviceMesh(2, 1, 1), new GlooBackend(), TIMEOUT)) {
        var t = torch.ones(4);
        d.dp().allReduce(t);
        d.world().allReduce(t);
        assertThat(t.sum().item_double()).isEqualTo(16.0);
        return id.masterPort();
      }
    });
    assertThat(listenable(ports.get(0))).as("the store's port is free again").isTrue();
  }

  @Test
  void aRankThatNeverClosesMakesTheOthersGiveUpAndKeepEverything() {
    Duration shortTimeout = Duration.ofSeconds(4);
    List<Distributed> ranks = ThreadedRun.onRanks(2, shortTimeout, id -> {
      Distributed d = Distributed.start(id, new DeviceMesh(2, 1, 1), new GlooBackend(), shortTimeout);
      d.dp().barrier();
      if (id.rank() == 0) d.close(); // rank 1 never comes: rank 0 gives up after the deadline, keeping everything
      return d;
    });
    int port = ranks.get(0).identity().masterPort();
    assertThat(listenable(port)).as("rank 0 still serves the store: rank 1 never left it").isFalse();
    for (Distributed d : ranks) { // what was kept can still be let go of, in order, by hand
      d.dp().close();
      d.world().close();
    }
    ranks.get(1).store().close();
    ranks.get(0).store().close();
    assertThat(listenable(port)).isTrue();
  }

  private static boolean listenable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
