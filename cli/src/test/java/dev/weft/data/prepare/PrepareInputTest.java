package dev.weft.data.prepare;

import static dev.weft.testing.WeftCli.assertOneLine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.data.ShardIndex;
import dev.weft.testing.WeftCli;
import dev.weft.tokenizer.ByteTokenizer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 31: invalid UTF-8 was replaced silently (item 7), and the progress line said 0 tokens until the end (item 12). */
class PrepareInputTest {
  @TempDir Path dir;

  private Path withBadByteAt(int offset) throws Exception {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes("é".repeat(offset / 2).getBytes(StandardCharsets.UTF_8)); // two bytes each: offsets inside pieces
    b.write(0xFF);
    b.writeBytes("after\n".getBytes(StandardCharsets.UTF_8));
    return Files.write(dir.resolve("bad.txt"), b.toByteArray());
  }

  @Test
  void invalidUtf8IsRefusedWithItsOffsetUnlessReplacementIsAsked() throws Exception {
    Path bad = withBadByteAt(200_000);
    assertOneLine(WeftCli.run("data", "prepare", "--tokenizer", "bytes", "--input", bad.toString(), "--out",
        dir.resolve("o").toString()), 2, "--input", "not UTF-8", "byte 0xFF at offset 200000", "--replace-invalid");
    assertThat(ShardIndex.isShardDirectory(dir.resolve("o"))).isFalse();
    assertThat(WeftCli.run("data", "prepare", "--tokenizer", "bytes", "--input", bad.toString(), "--out",
        dir.resolve("o2").toString(), "--replace-invalid").code()).isZero();
  }

  @Test
  void theFirstInvalidByteIsFoundExactlyAcrossBufferBoundaries() throws Exception {
    for (int at : new int[] {0, 2, 65_534, 65_536, 131_072}) assertThat(Utf8Check.firstInvalid(withBadByteAt(at))).isEqualTo(
        "byte 0xFF at offset " + at);
    Path cut = Files.write(dir.resolve("cut.txt"), new byte[] {'a', 'b', (byte) 0xC3});
    assertThat(Utf8Check.firstInvalid(cut)).isEqualTo("byte 0xC3 at offset 2");
  }

  @Test
  void progressCountsTheTokensOfTheBytesItReports() throws Exception {
    Path in = Files.writeString(dir.resolve("big.txt"), "the cat sat on the mat.\n".repeat(200_000)); // 4.8 MB, 4.8 M byte tokens
    List<long[]> updates = new ArrayList<>();
    try (ByteTokenizer t = new ByteTokenizer()) {
      Prepare.run(new Prepare.Request(t, List.of(in), dir.resolve("o"), "text", "text", 1 << 20, -1),
          (done, total, tokens) -> updates.add(new long[] {done, total, tokens}));
    }
    assertThat(updates.size()).isGreaterThan(2);
    for (long[] u : updates) {
      if (u[0] > 0) assertThat(u[2]).as("tokens when %d bytes are done", u[0]).isPositive();
      assertThat(u[2]).isLessThanOrEqualTo(u[0]); // a byte tokenizer: never more tokens than bytes read
    }
    long[] last = updates.get(updates.size() - 1);
    assertThat(last[0]).isEqualTo(last[1]);
    assertThat(last[2]).isEqualTo(Files.size(in));
  }
}
