package dev.weft.models.lora;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.DType;
import dev.weft.checkpoint.SafetensorsWriter;
import dev.weft.models.Init;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;

/**
 * A tiny random Llama as a Hugging Face directory (config.json as transformers writes it, one
 * model.safetensors under Hugging Face's names and shapes), spelled out here, not taken from Weft's model.
 */
final class TinyLlamaDir {
  static final int VOCAB = 256, HIDDEN = 32, INTERMEDIATE = 48, LAYERS = 2, HEADS = 4, KV_HEADS = 2, HEAD_DIM = 8;

  private TinyLlamaDir() {}

  /** Writes the directory and returns its tensors by name. */
  static Map<String, Tensor> write(Path dir, long seed) throws IOException {
    Files.createDirectories(dir);
    ObjectNode c = new ObjectMapper().createObjectNode();
    c.putArray("architectures").add("LlamaForCausalLM");
    c.put("model_type", "llama").put("vocab_size", VOCAB).put("hidden_size", HIDDEN).put("intermediate_size", INTERMEDIATE)
        .put("num_hidden_layers", LAYERS).put("num_attention_heads", HEADS).put("num_key_value_heads", KV_HEADS)
        .put("hidden_act", "silu").put("max_position_embeddings", 128).put("rms_norm_eps", 1e-5).put("rope_theta", 10000.0)
        .put("tie_word_embeddings", false).put("torch_dtype", "float32").put("attention_bias", false);
    Files.writeString(dir.resolve("config.json"), c.toPrettyString());
    Map<String, Tensor> t = new LinkedHashMap<>();
    t.put("model.embed_tokens.weight", Init.normalFull(seed, "embed", 0.5, VOCAB, HIDDEN));
    for (int i = 0; i < LAYERS; i++) {
      String p = "model.layers." + i + ".";
      t.put(p + "input_layernorm.weight", norm(seed, p + "in"));
      t.put(p + "self_attn.q_proj.weight", Init.normalFull(seed, p + "q", 0.2, HEADS * HEAD_DIM, HIDDEN));
      t.put(p + "self_attn.k_proj.weight", Init.normalFull(seed, p + "k", 0.2, KV_HEADS * HEAD_DIM, HIDDEN));
      t.put(p + "self_attn.v_proj.weight", Init.normalFull(seed, p + "v", 0.2, KV_HEADS * HEAD_DIM, HIDDEN));
      t.put(p + "self_attn.o_proj.weight", Init.normalFull(seed, p + "o", 0.2, HIDDEN, HEADS * HEAD_DIM));
      t.put(p + "post_attention_layernorm.weight", norm(seed, p + "post"));
      t.put(p + "mlp.gate_proj.weight", Init.normalFull(seed, p + "gate", 0.2, INTERMEDIATE, HIDDEN));
      t.put(p + "mlp.up_proj.weight", Init.normalFull(seed, p + "up", 0.2, INTERMEDIATE, HIDDEN));
      t.put(p + "mlp.down_proj.weight", Init.normalFull(seed, p + "down", 0.2, HIDDEN, INTERMEDIATE));
    }
    t.put("model.norm.weight", norm(seed, "norm"));
    t.put("lm_head.weight", Init.normalFull(seed, "head", 0.3, VOCAB, HIDDEN));
    List<SafetensorsWriter.Item> items = new ArrayList<>();
    t.forEach((n, x) -> items.add(new SafetensorsWriter.Item(n, DType.F32, x.sizes().vec().get(), x.contiguous())));
    SafetensorsWriter.write(dir.resolve("model.safetensors"), items, Map.of("format", "pt"));
    return t;
  }

  private static Tensor norm(long seed, String name) {
    return Init.normalFull(seed, name, 0.1, HIDDEN).add(new Scalar(1.0));
  }
}
