package dev.weft.models.hf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 41 item 3, for an export's copies of a source's tokenizer files: regular files only, no mode widened. */
class CarriedFilesTest {
  @TempDir Path dir;

  @Test
  void copiesRegularFilesOnlyAndNeverWidensTheirMode() throws Exception {
    Path from = Files.createDirectories(dir.resolve("from")), to = Files.createDirectories(dir.resolve("to"));
    Files.writeString(from.resolve("tokenizer.json"), "{}");
    Files.setPosixFilePermissions(from.resolve("tokenizer.json"), PosixFilePermissions.fromString("rw-------"));
    Path secret = Files.writeString(dir.resolve("shadow"), "secret");
    Files.createSymbolicLink(from.resolve("vocab.json"), secret);
    Files.writeString(to.resolve("tokenizer.json"), "old"); // a file there before is replaced, mode included

    assertThat(HfFiles.copyCarried(from, to)).containsExactly("tokenizer.json");
    assertThat(to.resolve("tokenizer.json")).hasContent("{}");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(to.resolve("tokenizer.json")))).isEqualTo("rw-------");
    assertThat(to.resolve("vocab.json")).doesNotExist();
  }
}
