package dev.weft.models.hf;

import static dev.weft.testing.WeftCli.assertOneLine;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.checkpoint.DType;
import dev.weft.checkpoint.SafetensorsWriter;
import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import dev.weft.eval.ModelSource;
import dev.weft.models.llama.TinyHfLlama;
import dev.weft.spec.SpecException;
import dev.weft.testing.WeftCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42 item 7: a pretrained directory whose float weight holds a NaN, or is stored as integers, was evaluated
 * ({@code loss NaN}, {@code loss 172575420.9}, exit 0). Each is refused in one line naming the tensor, exit 2, when
 * training, evaluating and generating load it.
 */
class DamagedWeightsTest {
  private static final String NAME = "model.layers.1.mlp.up_proj.weight";
  @TempDir static Path dir;
  static Path nan, ints, tokens;

  @BeforeAll
  static void models() throws Exception {
    Path good = TinyHfLlama.write(dir.resolve("good"), 7, false, false);
    nan = rewrite(good, dir.resolve("nan"), false);
    ints = rewrite(good, dir.resolve("ints"), true);
    tokens = dir.resolve("tokens.npy");
    int[] ids = new int[512];
    for (int i = 0; i < ids.length; i++) ids[i] = (i * 7) % 256;
    Npy.write(tokens, TokenWidth.UINT16, ids);
  }

  /** {@code good} with {@link #NAME} given one NaN, or stored as I64. */
  private static Path rewrite(Path good, Path out, boolean asIntegers) throws Exception {
    Files.createDirectories(out);
    Files.copy(good.resolve("config.json"), out.resolve("config.json"));
    HfCheckpoint in = HfCheckpoint.open(good, "MODEL");
    List<SafetensorsWriter.Item> items = new ArrayList<>();
    for (String n : in.names()) {
      Tensor t = in.read(n).clone();
      DType d = DType.F32;
      if (n.equals(NAME) && asIntegers) {
        t = t.mul(new Scalar(1000.0)).to(ScalarType.Long);
        d = DType.I64;
      } else if (n.equals(NAME)) {
        t.view(-1).narrow(0, 5, 1).fill_(new Scalar(Double.NaN));
      }
      items.add(new SafetensorsWriter.Item(n, d, t.sizes().vec().get(), t.contiguous()));
    }
    SafetensorsWriter.write(out.resolve("model.safetensors"), items, Map.of("format", "pt"));
    return out;
  }

  @Test
  void evalGenerateAndTrainRefuseThemNamingTheTensor() {
    for (Path bad : List.of(nan, ints)) {
      String why = bad == nan ? "non-finite" : "integer type";
      assertThatThrownBy(() -> ModelSource.open(bad, 32).model()).isInstanceOf(SpecException.class)
          .hasMessageContaining(NAME).hasMessageContaining(why);
      assertOneLine(WeftCli.run("eval", bad.toString(), "--data", tokens.toString(), "--seq-len", "32"), 2, NAME, why);
      assertOneLine(WeftCli.run("generate", bad.toString(), "--prompt-ids", "1,2,3", "--max-new-tokens", "2"), 2, NAME, why);
      assertThatThrownBy(() -> Trainer.model("llama").pretrained(bad).seqLen(16).globalBatch(2).steps(1)
          .runDir(dir.resolve("train-" + bad.getFileName())).fit()).hasMessageContaining(NAME).hasMessageContaining(why);
    }
  }
}
