package dev.weft.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The fixture itself: hosts reach each other, names resolve per host, a cut partitions, close leaves nothing. */
@Tag("hosts")
class NetHostsTest {
  @BeforeAll
  static void needsNamespaces() { assumeTrue(NetHosts.available(), NetHosts.unavailableReason()); }

  /** Exit code of a TCP connect from host {@code from} to port 9 of {@code target}: 1 = refused (reachable), 124 = no answer. */
  private static int connect(NetHosts h, int from, String target) throws Exception {
    Process p = new ProcessBuilder(h.command(from, List.of("timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/" + target + "/9")))
        .redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return p.exitValue();
  }

  private static String run(NetHosts h, int i, String... argv) throws Exception {
    return NetHosts.run(h.command(i, List.of(argv)));
  }

  @Test
  void hostsReachEachOtherByNameAndACutHostIsUnreachableUntilHealed() throws Exception {
    List<String> names;
    try (NetHosts h = NetHosts.create(2)) {
      names = List.of(h.name(0), h.name(1));
      assertThat(h.address(0)).matches("10\\.231\\.\\d+\\.1");
      assertThat(h.address(1)).isNotEqualTo(h.address(0));
      h.resolve("pod-a", 0);
      h.resolve("pod-b", 1);
      assertThat(run(h, 1, "getent", "hosts", "pod-a")).startsWith(h.address(0));
      assertThat(run(h, 0, "getent", "hosts", "pod-b")).startsWith(h.address(1));
      assertThat(run(h, 0, "ip", "-4", "-o", "addr", "show", "dev", "eth0")).contains(h.address(0) + "/24");
      assertThat(connect(h, 1, "pod-a")).as("refused = reachable").isEqualTo(1);
      h.cut(0);
      assertThat(connect(h, 1, h.address(0))).as("cut: no answer").isEqualTo(124);
      h.heal(0);
      assertThat(connect(h, 1, h.address(0))).isEqualTo(1);
    }
    String left = NetHosts.run(List.of("ip", "netns", "list"));
    for (String n : names) {
      assertThat(left).doesNotContain(n);
      assertThat(Files.exists(Path.of("/etc/netns", n))).isFalse();
    }
  }

  @Test
  void concurrentInstancesGetDifferentSubnets() {
    try (NetHosts a = NetHosts.create(1); NetHosts b = NetHosts.create(1)) {
      assertThat(a.address(0)).isNotEqualTo(b.address(0));
      assertThat(a.name(0)).isNotEqualTo(b.name(0));
    }
  }
}
