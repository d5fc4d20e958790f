package dev.weft.models.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.checkpoint.CorruptCheckpointException;
import dev.weft.models.Parameters;
import dev.weft.spec.SpecException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.pytorch.global.torch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 31: a Hugging Face directory goes through the same strict reader and the same path rules as checkpoints. */
class HfCheckpointIntegrityTest {
  @TempDir Path dir;

  private static final String TENSOR = "{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}";

  private void weights(String file, String header, int dataBytes) throws Exception {
    byte[] h = header.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(h.length).put(h);
    Files.write(dir.resolve(file), b.array());
  }

  @Test
  void aModelSafetensorsNamingATensorTwiceIsRefused() throws Exception {
    Files.writeString(dir.resolve(HfCheckpoint.CONFIG), "{\"model_type\":\"llama\"}");
    weights(HfCheckpoint.WEIGHTS, "{\"wte.weight\":" + TENSOR + ",\"wte.weight\":" + TENSOR + "}", 8);
    assertThatThrownBy(() -> HfCheckpoint.open(dir, "model.pretrained")).isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("Duplicate field 'wte.weight'");
  }

  @Test
  void anIndexNamingAFileOutsideTheDirectoryIsRefusedUnopened() throws Exception {
    Files.writeString(dir.resolve(HfCheckpoint.CONFIG), "{\"model_type\":\"llama\"}");
    Files.writeString(dir.resolve(HfCheckpoint.INDEX), "{\"weight_map\":{\"a\":\"../../../../etc/passwd\"}}");
    assertThatThrownBy(() -> HfCheckpoint.open(dir, "model.pretrained")).isInstanceOf(SpecException.class)
        .hasMessageContaining("names '../../../../etc/passwd', which is not a plain file name inside its directory");
    Files.writeString(dir.resolve(HfCheckpoint.INDEX), "{\"weight_map\":{\"a\":\"..\"}}");
    assertThatThrownBy(() -> HfCheckpoint.open(dir, "model.pretrained")).hasMessageContaining("not a plain file name");
  }

  @Test
  void aConfigThatIsADeviceOrHasADuplicateKeyIsOneLine() throws Exception {
    Files.createSymbolicLink(dir.resolve(HfCheckpoint.CONFIG), Path.of("/dev/zero"));
    assertThatThrownBy(() -> HfCheckpoint.config(dir, "model.pretrained")).isInstanceOf(SpecException.class)
        .hasMessageContaining("is not a regular file");
    Files.delete(dir.resolve(HfCheckpoint.CONFIG));
    Files.writeString(dir.resolve(HfCheckpoint.CONFIG), "{\"n_layer\":2,\"n_layer\":1000000}");
    assertThatThrownBy(() -> HfCheckpoint.config(dir, "model.pretrained")).isInstanceOf(SpecException.class)
        .hasMessageContaining("Duplicate field 'n_layer'");
  }

  @Test
  void aHeaderShapeLieIsOneLineNotANativeTrace() {
    Parameters params = new Parameters();
    params.add(new Parameters.Param("pos_emb.weight", torch.zeros(8, 4), new long[] {8, 4}, -1, 0, 1));
    // what Gpt2Format does with wpe.weight: narrow it to the model's rows, here from a file whose header says 1-D
    assertThatThrownBy(() -> PretrainedWeights.copyInto(params, (name, shape) -> torch.zeros(4).narrow(0, 0, shape[0]), "model.pretrained"))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith("model.pretrained: the tensor(s) for pos_emb.weight (needed as [8, 4]) have a shape that does not fit")
        .hasMessageNotContaining("\n");
    assertThat(params.get("pos_emb.weight").tensor().sum().item_float()).isZero();
  }
}
