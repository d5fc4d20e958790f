package dev.weft.models.decoder;

import static dev.weft.testing.WeftCli.assertOneLine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import dev.weft.models.hf.HfReference;
import dev.weft.testing.WeftCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint and a config.json that do not describe the same model are refused before anything is
 * built, in one line naming the tensor and the config.json key: an extra tensor (nothing is silently
 * dropped), a missing one, a wrong shape; and an unknown rope_type or model_type is named.
 */
class HfFamilyRefusalsTest {
  @TempDir Path dir;

  private Path family(String name, boolean tied, Consumer<ObjectNode> edit) throws Exception {
    Path d = HfReference.writeFamily(name, dir.resolve(name + "-" + Math.abs(edit.hashCode())), 5, tied);
    ObjectMapper json = new ObjectMapper();
    ObjectNode c = (ObjectNode) json.readTree(d.resolve("config.json").toFile());
    edit.accept(c);
    json.writeValue(d.resolve("config.json").toFile(), c);
    return d;
  }

  private WeftCli.Run eval(Path model) {
    Path tokens = dir.resolve("t.npy");
    if (!Files.exists(tokens)) Npy.write(tokens, TokenWidth.UINT16, new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
    return WeftCli.run("eval", model.toString(), "--data", tokens.toString(), "--seq-len", "4");
  }

  @Test
  void anExtraTensorIsRefusedNamingTheKeyThatWouldUseIt() throws Exception {
    // Qwen 2's q/k/v biases, read as a Llama without attention_bias, would be silently ignored
    Path d = family("qwen2", false, c -> c.put("model_type", "llama"));
    assertOneLine(eval(d), 2, "model.pretrained", "model.layers.0.self_attn.",
        "_proj.bias is in the checkpoint but config.json has no attention_bias");
  }

  @Test
  void aMissingTensorIsRefused() throws Exception {
    Path d = family("llama", false, c -> c.put("attention_bias", true));
    assertOneLine(eval(d), 2, "model.layers.0.self_attn.q_proj.bias is not in the checkpoint", "attention_bias=true");
    Path q = family("qwen3", false, c -> c.put("model_type", "qwen2"));
    assertOneLine(eval(q), 2, "is in the checkpoint but", "(and ");
  }

  @Test
  void aWrongShapeIsRefused() throws Exception {
    Path d = family("mistral", false, c -> c.put("intermediate_size", 64));
    assertOneLine(eval(d), 2, "model.layers.0.mlp.gate_proj.weight has shape [48, 32]", "[64, 32]", "intermediate_size");
  }

  @Test
  void anUntiedModelWithoutItsHeadIsRefused() throws Exception {
    Path d = family("llama", true, c -> c.put("tie_word_embeddings", false));
    assertOneLine(eval(d), 2, "lm_head.weight is not in the checkpoint", "tie_word_embeddings=false");
  }

  @Test
  void anUnknownRopeTypeOrModelTypeIsNamed() throws Exception {
    Path rope = family("llama", true, c -> ((ObjectNode) c.get("rope_scaling")).put("rope_type", "longrope"));
    assertOneLine(eval(rope), 2, "rope_type 'longrope' is not supported", "llama3", "yarn");
    Path type = family("llama", true, c -> c.put("model_type", "gemma"));
    assertOneLine(eval(type), 2, "model_type 'gemma'", "qwen3", "mistral");
  }

  @Test
  void trainingRefusesBeforeAnyRankStarts() throws Exception {
    Path d = family("qwen2", false, c -> c.put("model_type", "llama"));
    Path spec = Files.writeString(dir.resolve("s.yaml"), "name: t\nmodel: {factory: llama}\n");
    assertOneLine(WeftCli.run("train", spec.toString(), "--set", "model.pretrained=" + d, "--set", "train.steps=1", "--run-dir",
        dir.resolve("run").toString()), 2, "_proj.bias is in the checkpoint");
  }
}
