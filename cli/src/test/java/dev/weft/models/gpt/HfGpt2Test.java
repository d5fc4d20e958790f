package dev.weft.models.gpt;

import dev.weft.testing.WeftCli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.Trainer;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.DType;
import dev.weft.checkpoint.SafetensorsWriter;
import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import dev.weft.models.Init;
import dev.weft.models.hf.HfReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GPT reads and writes Hugging Face GPT-2 directories (Conv1D weights, fused c_attn, tanh GELU, tied head). */
class HfGpt2Test {
  static final int VOCAB = 256, EMBD = 32, LAYERS = 2, HEADS = 4, POSITIONS = 64;

  @TempDir Path dir;

  /** A tiny random GPT-2 as transformers saves it (prefix "transformer.", weights [in, out], no lm_head: tied). */
  static Path writeGpt2(Path d, long seed) throws Exception {
    Files.createDirectories(d);
    ObjectNode c = new ObjectMapper().createObjectNode();
    c.putArray("architectures").add("GPT2LMHeadModel");
    c.put("model_type", "gpt2").put("vocab_size", VOCAB).put("n_positions", POSITIONS).put("n_embd", EMBD).put("n_layer", LAYERS)
        .put("n_head", HEADS).putNull("n_inner");
    c.put("activation_function", "gelu_new").put("layer_norm_epsilon", 1e-5);
    Files.writeString(d.resolve("config.json"), c.toPrettyString());
    Map<String, Tensor> t = new LinkedHashMap<>();
    t.put("transformer.wte.weight", Init.normalFull(seed, "wte", 0.5, VOCAB, EMBD));
    t.put("transformer.wpe.weight", Init.normalFull(seed, "wpe", 0.3, POSITIONS, EMBD));
    for (int i = 0; i < LAYERS; i++) {
      String h = "transformer.h." + i + ".";
      t.put(h + "ln_1.weight", Init.normalFull(seed, h + "l1w", 0.1, EMBD).add(new Scalar(1)));
      t.put(h + "ln_1.bias", Init.normalFull(seed, h + "l1b", 0.1, EMBD));
      t.put(h + "attn.c_attn.weight", Init.normalFull(seed, h + "ca", 0.2, EMBD, 3 * EMBD));
      t.put(h + "attn.c_attn.bias", Init.normalFull(seed, h + "cab", 0.1, 3 * EMBD));
      t.put(h + "attn.c_proj.weight", Init.normalFull(seed, h + "cp", 0.2, EMBD, EMBD));
      t.put(h + "attn.c_proj.bias", Init.normalFull(seed, h + "cpb", 0.1, EMBD));
      t.put(h + "ln_2.weight", Init.normalFull(seed, h + "l2w", 0.1, EMBD).add(new Scalar(1)));
      t.put(h + "ln_2.bias", Init.normalFull(seed, h + "l2b", 0.1, EMBD));
      t.put(h + "mlp.c_fc.weight", Init.normalFull(seed, h + "fc", 0.2, EMBD, 4 * EMBD));
      t.put(h + "mlp.c_fc.bias", Init.normalFull(seed, h + "fcb", 0.1, 4 * EMBD));
      t.put(h + "mlp.c_proj.weight", Init.normalFull(seed, h + "mp", 0.2, 4 * EMBD, EMBD));
      t.put(h + "mlp.c_proj.bias", Init.normalFull(seed, h + "mpb", 0.1, EMBD));
    }
    t.put("transformer.ln_f.weight", Init.normalFull(seed, "lfw", 0.1, EMBD).add(new Scalar(1)));
    t.put("transformer.ln_f.bias", Init.normalFull(seed, "lfb", 0.1, EMBD));
    List<SafetensorsWriter.Item> items = new ArrayList<>();
    t.forEach((n, x) -> items.add(new SafetensorsWriter.Item(n, DType.F32, x.sizes().vec().get(), x.contiguous())));
    SafetensorsWriter.write(d.resolve("model.safetensors"), items, Map.of("format", "pt"));
    return d;
  }

  @Test
  void evalMatchesAnIndependentReference() throws Exception {
    Path model = writeGpt2(dir.resolve("gpt2"), 3);
    Path tokens = dir.resolve("t.npy");
    Npy.write(tokens, TokenWidth.UINT16, new Random(9).ints(32 * 4 + 1, 0, VOCAB).toArray());
    Path out = dir.resolve("eval.json");
    assertThat(WeftCli.capture("eval", model.toString(), "--data", tokens.toString(), "--seq-len", "32", "-o", out.toString()).code()).isZero();
    JsonNode eval = new ObjectMapper().readTree(out.toFile());
    JsonNode ref = HfReference.numpyReference(model, tokens, 32, "5,17,99", 6);
    double rel = Math.abs(eval.get("loss").asDouble() - ref.get("loss").asDouble()) / ref.get("loss").asDouble();
    assertThat(rel).as("weft %s vs numpy %s", eval.get("loss"), ref.get("loss")).isLessThanOrEqualTo(1e-4);
    WeftCli.Output gen = WeftCli.capture("generate", model.toString(), "--prompt-ids", "5,17,99", "--max-new-tokens", "6");
    assertThat(gen.code()).isZero();
    StringBuilder want = new StringBuilder();
    ref.get("greedy").forEach(id -> want.append(want.length() == 0 ? "" : ",").append(id.asLong()));
    assertThat(gen.out().strip()).isEqualTo(want.toString());
  }

  @Test
  void exportWritesBackWhatWasLoaded() throws Exception {
    Path model = writeGpt2(dir.resolve("gpt2"), 4);
    Trainer.model("gpt").pretrained(model).seqLen(POSITIONS).globalBatch(4).tensorParallel(2).steps(1).lr(1e-30).minLr(0).warmup(0)
        .set("train.weightDecay", 0).checkpointEvery(1).runDir(dir.resolve("run")).fit();
    Path out = dir.resolve("exported");
    assertThat(WeftCli.capture("checkpoint", "export", dir.resolve("run/checkpoints").toString(), "--format", "hf", "-o", out.toString())
        .code()).isZero();
    Map<String, Tensor> original = ConsolidatedWeights.load(model.resolve("model.safetensors"));
    Map<String, Tensor> exported = ConsolidatedWeights.load(out.resolve("model.safetensors"));
    for (String name : original.keySet()) {
      assertThat(exported).containsKey(name);
      assertThat(exported.get(name).sizes().vec().get()).as(name).isEqualTo(original.get(name).sizes().vec().get());
      assertThat(exported.get(name).equal(original.get(name))).as("%s bit for bit", name).isTrue();
    }
    assertThat(exported.get("lm_head.weight").equal(original.get("transformer.wte.weight"))).isTrue();
    JsonNode config = new ObjectMapper().readTree(out.resolve("config.json").toFile());
    assertThat(config.get("model_type").asText()).isEqualTo("gpt2");
    assertThat(config.get("activation_function").asText()).isEqualTo("gelu_new");
    assertThat(config.get("n_inner").isNull()).isTrue(); // the source's null (4 · n_embd), kept as it was
    assertThat(config.get("tie_word_embeddings").asBoolean()).isFalse(); // absent in the source, but Weft writes lm_head
    // a checkpoint is a MODEL too: sampling from it with a KV cache
    WeftCli.Output gen = WeftCli.capture("generate", dir.resolve("run/checkpoints").toString(), "--prompt-ids", "1,2,3",
        "--max-new-tokens", "5", "--temperature", "0.9", "--top-k", "40", "--top-p", "0.95", "--seed", "7");
    assertThat(gen.code()).isZero();
    assertThat(gen.out().strip().split(",")).hasSize(5);
  }
}
