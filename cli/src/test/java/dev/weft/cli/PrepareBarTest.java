package dev.weft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PrepareBarTest {
  @Test
  void barShowsShareBytesTokensAndEta() {
    assertThat(PrepareBar.render(512L << 20, 1L << 30, 1234567, 10)).isEqualTo(
        "[############............]  50%  512.0 MiB of 1.00 GiB  1,234,567 tokens  ETA 0:10");
  }

  @Test
  void offTerminalItPrintsOnePlainLinePerTenth() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrepareBar bar = new PrepareBar(new PrintStream(buf, true, StandardCharsets.UTF_8), false);
    for (long done = 0; done <= 1000; done += 7) bar.update(done, 1000, done);
    bar.update(1000, 1000, 1000);
    bar.finish();
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(out).doesNotContain("\r");
    assertThat(out.lines().count()).isEqualTo(11);
    assertThat(out.lines().reduce((a, b) -> b).orElseThrow()).contains("100%");
  }
}
