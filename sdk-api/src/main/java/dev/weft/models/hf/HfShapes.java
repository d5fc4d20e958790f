package dev.weft.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tensors a Hugging Face decoder checkpoint holds, by Hugging Face's standard names, with their
 * shapes, computed from config.json alone: {@code llama} (Llama 2/3.x, SmolLM2, TinyLlama),
 * {@code mistral}, {@code qwen2} (q/k/v biases) and {@code qwen3} (per-head q/k RMSNorm, explicit
 * {@code head_dim}). In the order transformers builds them; a tied head has no {@code lm_head.weight}.
 * Pure: no files, no tensors.
 */
public final class HfShapes {
  private HfShapes() {}

  /** Names → shapes for {@code config}; {@code field} names where the config came from in errors. */
  public static Map<String, long[]> of(JsonNode config, String field) {
    String type = config.path("model_type").asText("");
    if (!type.equals("llama") && !type.equals("mistral") && !type.equals("qwen2") && !type.equals("qwen3")) {
      throw new SpecException(field, "model_type '" + type + "' has no known tensor names; use llama, mistral, qwen2 or qwen3");
    }
    long vocab = need(config, "vocab_size", field), hidden = need(config, "hidden_size", field);
    long inter = need(config, "intermediate_size", field), layers = need(config, "num_hidden_layers", field);
    long heads = need(config, "num_attention_heads", field);
    long kv = config.hasNonNull("num_key_value_heads") ? need(config, "num_key_value_heads", field) : heads;
    long headDim = config.hasNonNull("head_dim") ? need(config, "head_dim", field) : hidden / heads;
    boolean attnBias = config.path("attention_bias").asBoolean(false);
    boolean qkvBias = type.equals("qwen2") || attnBias;
    boolean oBias = !type.equals("qwen2") && attnBias;
    boolean mlpBias = config.path("mlp_bias").asBoolean(false);
    boolean qkNorm = type.equals("qwen3");
    Map<String, long[]> out = new LinkedHashMap<>();
    out.put("model.embed_tokens.weight", new long[] {vocab, hidden});
    for (long i = 0; i < layers; i++) {
      String n = "model.layers." + i + ".";
      linear(out, n + "self_attn.q_proj", heads * headDim, hidden, qkvBias);
      linear(out, n + "self_attn.k_proj", kv * headDim, hidden, qkvBias);
      linear(out, n + "self_attn.v_proj", kv * headDim, hidden, qkvBias);
      linear(out, n + "self_attn.o_proj", hidden, heads * headDim, oBias);
      if (qkNorm) {
        out.put(n + "self_attn.q_norm.weight", new long[] {headDim});
        out.put(n + "self_attn.k_norm.weight", new long[] {headDim});
      }
      linear(out, n + "mlp.gate_proj", inter, hidden, mlpBias);
      linear(out, n + "mlp.up_proj", inter, hidden, mlpBias);
      linear(out, n + "mlp.down_proj", hidden, inter, mlpBias);
      out.put(n + "input_layernorm.weight", new long[] {hidden});
      out.put(n + "post_attention_layernorm.weight", new long[] {hidden});
    }
    out.put("model.norm.weight", new long[] {hidden});
    if (!config.path("tie_word_embeddings").asBoolean(false)) out.put("lm_head.weight", new long[] {vocab, hidden});
    return out;
  }

  /** Elements of every tensor together: the model's parameter count. */
  public static long parameters(Map<String, long[]> shapes) {
    long n = 0;
    for (long[] s : shapes.values()) {
      long e = 1;
      for (long d : s) e *= d;
      n += e;
    }
    return n;
  }

  private static void linear(Map<String, long[]> out, String name, long rows, long cols, boolean bias) {
    out.put(name + ".weight", new long[] {rows, cols});
    if (bias) out.put(name + ".bias", new long[] {rows});
  }

  private static long need(JsonNode config, String key, String field) {
    JsonNode v = config.get(key);
    if (v == null || !v.canConvertToLong() || v.asLong() <= 0) {
      throw new SpecException(field, "config.json needs a positive integer " + key + (v == null ? "" : ", not " + v));
    }
    return v.asLong();
  }
}
