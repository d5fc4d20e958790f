package dev.weft.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** Ports for listeners another process binds later come from below the kernel's ephemeral range, and bind. */
class FreePortTest {
  @Test
  void aFoundPortLiesBelowTheEphemeralRangeAndBinds() throws Exception {
    int low = FreePort.ephemeralLow();
    for (int i = 0; i < 20; i++) {
      int port = FreePort.find();
      assertThat(port).isBetween(Math.max(1024, low - 1 - FreePort.SPAN), low - 1);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertThat(s.getLocalPort()).isEqualTo(port);
      }
    }
  }

  @Test
  void theEphemeralRangeIsReadWhole() throws Exception {
    var f = java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isReadable(f), "not Linux");
    int expected;
    try (var in = new java.io.FileInputStream(f.toFile())) { // read to the end, whatever size the file reports
      expected = Integer.parseInt(new String(in.readAllBytes()).trim().split("\\s+")[0]);
    }
    assertThat(FreePort.ephemeralLow()).isEqualTo(expected).isGreaterThan(1024);
  }

  @Test
  void theDrawRangeEndsJustBelowTheEphemeralRangeAndNeverReachesPrivilegedPorts() {
    assertThat(FreePort.drawRange(32768)).containsExactly(32767 - FreePort.SPAN, 32767);
    assertThat(FreePort.drawRange(10000)).containsExactly(1024, 9999);
    assertThat(FreePort.drawRange(1024)[1]).isLessThan(FreePort.drawRange(1024)[0]); // empty: the kernel's choice
  }
}
