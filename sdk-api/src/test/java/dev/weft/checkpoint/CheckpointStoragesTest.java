package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.spec.SpecException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** checkpoint.dir by scheme: a path or file:// is a local directory; another scheme needs its provider on the class path. */
class CheckpointStoragesTest {
  @TempDir Path dir;

  @Test
  void aPathOrFileUriIsALocalDirectory() {
    assertThat(CheckpointStorages.open(dir.toString(), dir.resolve("w"))).isInstanceOf(LocalCheckpointStorage.class)
        .extracting(CheckpointStorage::location).isEqualTo(dir.toString());
    assertThat(((LocalCheckpointStorage) CheckpointStorages.open(dir.toUri().toString(), dir.resolve("w"))).root()).isEqualTo(dir);
    assertThat(CheckpointStorages.isUri("s3://b/p")).isTrue();
    assertThat(CheckpointStorages.isUri("runs/x/checkpoints")).isFalse();
  }

  @Test
  void aSchemeWithoutItsModuleNamesTheFieldAndTheModule() {
    // sdk-api alone has no s3 provider: sdk-s3 brings it
    assertThatThrownBy(() -> CheckpointStorages.open("s3://bucket/prefix", dir)).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("checkpoint.dir: s3://bucket/prefix: no checkpoint storage for 's3://'")
        .hasMessageContaining("weft-sdk-s3");
    assertThatThrownBy(() -> CheckpointStorages.open("gs://bucket/prefix", dir)).isInstanceOf(SpecException.class)
        .hasMessageContaining("'gs://'");
  }

  @Test
  void aStepUriSplitsIntoItsRootAndStep() {
    assertThat(CheckpointStorages.stepUri("s3://b/run/step-000010/")).isEqualTo(new CheckpointStorages.Step("s3://b/run", 10));
    assertThat(CheckpointStorages.stepUri("s3://b/run")).isNull();
    assertThat(CheckpointStorages.stepUri("runs/x/step-000010")).isNull();
  }
}
