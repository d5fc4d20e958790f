package dev.weft.util;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.launch.LocalLauncher;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 31, item 7 (full disk): a rank whose store connection broke printed 24 lines of libtorch frames. */
class NativeTracesTest {
  private static final String TRACE = """
      [W1202 07:23:16.807030256 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=61): Connection reset by peer
      Exception raised from recvBytes at /pytorch/torch/csrc/distributed/c10d/Utils.hpp:679 (most recent call first):
      frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xac (0x7fc3a53858cc in libc10.so)
      frame #1: <unknown function> + 0x6c9243e (0x7fc30869243e in libtorch_cpu.so)
      frame #6: [0x7fc3ac94557a]

      weft: native error: Connection reset by peer (run again with --debug for the stack trace)
      """;

  @Test
  void theLauncherRelaysARanksOutputWithoutNativeFrames() throws Exception {
    Process p = new ProcessBuilder("printf", "%s", TRACE).start();
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    Thread pump = LocalLauncher.pump(1, p, new ArrayDeque<>(), new PrintStream(console, true, StandardCharsets.UTF_8));
    p.waitFor();
    pump.join(30_000);
    List<String> lines = console.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).startsWith("[rank 1] [W1202").endsWith("Connection reset by peer");
    assertThat(lines.get(1)).isEqualTo("[rank 1] weft: native error: Connection reset by peer (run again with --debug for the stack trace)");
  }

  @Test
  void aMessageKeepsItsFirstLine() {
    assertThat(NativeTraces.firstLine("Connection reset by peer\nException raised from x\nframe #0: y")).isEqualTo("Connection reset by peer");
    assertThat(NativeTraces.hasTrace("Connection reset by peer\nException raised from x")).isTrue();
    assertThat(NativeTraces.hasTrace("one line")).isFalse();
    assertThat(NativeTraces.firstLine(null)).isEmpty();
  }

  @Test
  void blankLinesOutsideATraceAreKept() {
    NativeTraces.Filter f = new NativeTraces.Filter();
    assertThat(f.keep("")).isTrue();
    assertThat(f.keep("frame #3: z")).isFalse();
    assertThat(f.keep("")).isFalse();
    assertThat(f.keep("")).isTrue();
  }
}
