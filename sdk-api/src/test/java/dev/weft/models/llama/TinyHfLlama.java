package dev.weft.models.llama;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.DType;
import dev.weft.checkpoint.SafetensorsWriter;
import dev.weft.models.Init;
import dev.weft.models.hf.HfCheckpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Writes a tiny random Llama in Hugging Face's format — config.json as transformers writes it and
 * the tensors under Hugging Face's names and shapes, spelled out here independently of Weft's Llama
 * — in one model.safetensors or in two shards with model.safetensors.index.json.
 */
public final class TinyHfLlama {
  public static final int VOCAB = 256, HIDDEN = 32, INTERMEDIATE = 48, LAYERS = 2, HEADS = 4, KV_HEADS = 2, HEAD_DIM = 8;

  private TinyHfLlama() {}

  public static Path write(Path dir, long seed, boolean tied, boolean sharded) throws IOException {
    return write(dir, seed, tied, sharded, VOCAB);
  }

  /** As {@link #write(Path, long, boolean, boolean)} with a vocabulary of {@code vocab} tokens. */
  static Path write(Path dir, long seed, boolean tied, boolean sharded, int vocab) throws IOException {
    Files.createDirectories(dir);
    ObjectNode c = new ObjectMapper().createObjectNode();
    c.putArray("architectures").add("LlamaForCausalLM");
    c.put("model_type", "llama").put("vocab_size", vocab).put("hidden_size", HIDDEN).put("intermediate_size", INTERMEDIATE)
        .put("num_hidden_layers", LAYERS).put("num_attention_heads", HEADS).put("num_key_value_heads", KV_HEADS)
        .put("hidden_act", "silu").put("max_position_embeddings", 128).put("rms_norm_eps", 1e-5).put("rope_theta", 500.0)
        .put("tie_word_embeddings", tied).put("torch_dtype", "float32").put("attention_bias", false);
    Files.writeString(dir.resolve("config.json"), c.toPrettyString());

    Map<String, Tensor> t = new LinkedHashMap<>();
    t.put("model.embed_tokens.weight", random(seed, "embed", 0.5, vocab, HIDDEN));
    for (int i = 0; i < LAYERS; i++) {
      String p = "model.layers." + i + ".";
      t.put(p + "input_layernorm.weight", norm(seed, p + "in"));
      t.put(p + "self_attn.q_proj.weight", random(seed, p + "q", 0.2, HEADS * HEAD_DIM, HIDDEN));
      t.put(p + "self_attn.k_proj.weight", random(seed, p + "k", 0.2, KV_HEADS * HEAD_DIM, HIDDEN));
      t.put(p + "self_attn.v_proj.weight", random(seed, p + "v", 0.2, KV_HEADS * HEAD_DIM, HIDDEN));
      t.put(p + "self_attn.o_proj.weight", random(seed, p + "o", 0.2, HIDDEN, HEADS * HEAD_DIM));
      t.put(p + "post_attention_layernorm.weight", norm(seed, p + "post"));
      t.put(p + "mlp.gate_proj.weight", random(seed, p + "gate", 0.2, INTERMEDIATE, HIDDEN));
      t.put(p + "mlp.up_proj.weight", random(seed, p + "up", 0.2, INTERMEDIATE, HIDDEN));
      t.put(p + "mlp.down_proj.weight", random(seed, p + "down", 0.2, HIDDEN, INTERMEDIATE));
    }
    t.put("model.norm.weight", norm(seed, "norm"));
    if (!tied) t.put("lm_head.weight", random(seed, "head", 0.3, vocab, HIDDEN));

    if (!sharded) {
      SafetensorsWriter.write(dir.resolve("model.safetensors"), items(t), Map.of("format", "pt"));
      return dir;
    }
    List<String> names = new ArrayList<>(t.keySet());
    ObjectNode index = new ObjectMapper().createObjectNode();
    index.putObject("metadata").put("total_size", 0);
    ObjectNode map = index.putObject("weight_map");
    for (int s = 0; s < 2; s++) {
      String file = "model-0000" + (s + 1) + "-of-00002.safetensors";
      Map<String, Tensor> part = new LinkedHashMap<>();
      for (int i = s; i < names.size(); i += 2) {
        part.put(names.get(i), t.get(names.get(i)));
        map.put(names.get(i), file);
      }
      SafetensorsWriter.write(dir.resolve(file), items(part), Map.of("format", "pt"));
    }
    Files.writeString(dir.resolve("model.safetensors.index.json"), index.toPrettyString());
    return dir;
  }

  /** {@code src}'s directory with its weights rewritten in bf16 (config.json says so). */
  public static Path bf16Copy(Path src, Path out) throws Exception {
    Files.createDirectories(out);
    Files.writeString(out.resolve("config.json"),
        Files.readString(src.resolve("config.json")).replace("\"float32\"", "\"bfloat16\""));
    HfCheckpoint in = HfCheckpoint.open(src, "MODEL");
    List<SafetensorsWriter.Item> items = new ArrayList<>();
    for (String n : in.names()) {
      Tensor t = in.read(n).to(torch.ScalarType.BFloat16).contiguous();
      items.add(new SafetensorsWriter.Item(n, DType.BF16, t.sizes().vec().get(), t));
    }
    SafetensorsWriter.write(out.resolve("model.safetensors"), items, Map.of("format", "pt"));
    return out;
  }

  static List<SafetensorsWriter.Item> items(Map<String, Tensor> t) {
    List<SafetensorsWriter.Item> items = new ArrayList<>();
    t.forEach((n, x) -> items.add(new SafetensorsWriter.Item(n, DType.F32, x.sizes().vec().get(), x.contiguous())));
    return items;
  }

  private static Tensor random(long seed, String name, double std, long... shape) {
    return Init.normalFull(seed, name, std, shape);
  }

  /** Norm scales near 1 but not 1, so a norm that ignored its weight would show. */
  private static Tensor norm(long seed, String name) {
    return Init.normalFull(seed, name, 0.1, HIDDEN).add(new org.bytedeco.pytorch.Scalar(1.0));
  }
}
