package dev.weft.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import dev.weft.spec.SpecException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42 review: the data's ids are read against the model's vocabulary once per process (not at every validation:
 * the CLI's, each rank thread's) and the launcher tells the workers it starts that it has read them.
 */
class DataVocabCheckTest {
  @TempDir Path dir;

  private Trainer gpt(Path data) { return Trainer.model("gpt").set("model.config.vocab", 256).data(data.toString()).seqLen(8); }

  @Test
  void theDataIsReadOnceAndTheWorkersAreToldSo() throws Exception {
    Path bad = dir.resolve("bad.npy");
    int[] ids = new int[200];
    ids[150] = 300;
    Npy.write(bad, TokenWidth.UINT16, ids);
    assertThatThrownBy(() -> gpt(bad).toSpec()).isInstanceOf(SpecException.class).hasMessageContaining("300");

    Path data = dir.resolve("good.npy");
    ids[150] = 7;
    Npy.write(data, TokenWidth.UINT16, ids);
    var spec = gpt(data).toSpec();
    assertThat(ModelFactories.withDataChecked(Map.of("A", "1"), spec)).containsEntry("A", "1").containsKey(ModelFactories.DATA_CHECKED_ENV);
    // the same spec over the same files (name, size, modification time) again in this process: not read a second time —
    // shown by bytes changed behind the check's back, with the file's time put back
    java.nio.file.attribute.FileTime seen = java.nio.file.Files.getLastModifiedTime(data);
    ids[150] = 300;
    Npy.write(data, TokenWidth.UINT16, ids);
    java.nio.file.Files.setLastModifiedTime(data, seen);
    gpt(data).toSpec();
    // an edited file is read again
    java.nio.file.Files.setLastModifiedTime(data, java.nio.file.attribute.FileTime.fromMillis(seen.toMillis() + 1000));
    assertThatThrownBy(() -> gpt(data).toSpec()).isInstanceOf(SpecException.class).hasMessageContaining("token 150 holds id 300");
  }
}
