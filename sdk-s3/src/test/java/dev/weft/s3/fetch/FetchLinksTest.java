package dev.weft.s3.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.testing.WeftCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41 item 3: {@code weft fetch} of a directory copies regular files only. A link that leaves the source (to
 * {@code /etc/shadow}, here a private file beside it) or a FIFO is refused in one line, exit 2, and nothing of it is
 * copied; a link inside the source is copied as the file it names; no copy is readable by more than its original.
 */
class FetchLinksTest {
  @TempDir Path dir;

  private Path src() throws Exception {
    Path src = Files.createDirectories(dir.resolve("src"));
    Files.writeString(src.resolve("config.json"), "{}");
    return src;
  }

  private Path secret() throws Exception {
    Path secret = dir.resolve("shadow");
    Files.writeString(secret, "root:$6$secret");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
    return secret;
  }

  @Test
  void aLinkThatLeavesTheSourceIsRefusedInOneLine() throws Exception {
    Path src = src();
    Files.createSymbolicLink(src.resolve("tokenizer.json"), secret());
    Path dst = dir.resolve("dst");
    WeftCli.Run r = WeftCli.run("fetch", src.toString(), dst.toString());
    WeftCli.assertOneLine(r, 2, "tokenizer.json", "outside", "links are followed only inside the source");
    assertThat(dst.resolve("tokenizer.json")).doesNotExist();
    assertThat(dst.resolve("tokenizer.json.partial")).doesNotExist();
  }

  @Test
  void aDanglingLinkOrAFifoIsRefused() throws Exception {
    Path src = src();
    Files.createSymbolicLink(src.resolve("gone.json"), dir.resolve("nothing"));
    WeftCli.assertOneLine(WeftCli.run("fetch", src.toString(), dir.resolve("dst").toString()), 2, "gone.json", "a link to nothing");
    Files.delete(src.resolve("gone.json"));
    Process mk = new ProcessBuilder("mkfifo", src.resolve("pipe").toString()).inheritIO().start();
    assertThat(mk.waitFor(30, TimeUnit.SECONDS) && mk.exitValue() == 0).as("mkfifo").isTrue();
    WeftCli.assertOneLine(WeftCli.run("fetch", src.toString(), dir.resolve("dst").toString()), 2, "pipe", "not a regular file");
  }

  @Test
  void aLinkInsideIsCopiedAsItsFileAndNoModeIsWidened() throws Exception {
    Path src = src();
    Files.createDirectories(src.resolve("sub"));
    Files.writeString(src.resolve("sub/weights.bin"), "abc");
    Files.setPosixFilePermissions(src.resolve("sub/weights.bin"), PosixFilePermissions.fromString("rw-r-----"));
    Files.createSymbolicLink(src.resolve("alias.bin"), Path.of("sub/weights.bin"));
    Files.writeString(src.resolve("private.txt"), "mine");
    Files.setPosixFilePermissions(src.resolve("private.txt"), PosixFilePermissions.fromString("rw-------"));
    Path dst = dir.resolve("dst");
    WeftCli.Run r = WeftCli.run("fetch", src.toString(), dst.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.isSymbolicLink(dst.resolve("alias.bin"))).isFalse();
    assertThat(dst.resolve("alias.bin")).hasContent("abc");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dst.resolve("private.txt")))).isEqualTo("rw-------");
    assertThat(Files.getPosixFilePermissions(dst.resolve("sub/weights.bin")))
        .isSubsetOf(PosixFilePermissions.fromString("rw-r-----"));
    assertThat(Files.getPosixFilePermissions(dst.resolve("alias.bin"))).isSubsetOf(PosixFilePermissions.fromString("rw-r-----"));
  }
}
