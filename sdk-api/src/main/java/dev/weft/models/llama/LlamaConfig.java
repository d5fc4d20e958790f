package dev.weft.models.llama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Json;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Sizes of a Llama, named as in a Hugging Face {@code config.json}. They come from a preset
 * ({@code model.config.size}), or from {@code model.pretrained}'s config.json, and any key of
 * {@code model.config} overrides them.
 */
public record LlamaConfig(int vocab, int hidden, int intermediate, int layers, int heads, int kvHeads, int headDim,
                          double rmsEps, double ropeTheta, boolean tied, double initStd, int seqLen) {
  static final Set<String> KEYS = Set.of("size", "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
      "num_attention_heads", "num_key_value_heads", "head_dim", "rms_norm_eps", "rope_theta", "tie_word_embeddings",
      "initializer_range");

  /** Presets (in config.json terms) for runs that do not start from a pretrained directory. */
  static final Map<String, Map<String, Object>> SIZES = Map.of(
      "tiny", Map.of("vocab_size", 256, "hidden_size", 64, "intermediate_size", 176, "num_hidden_layers", 4,
          "num_attention_heads", 4, "num_key_value_heads", 2),
      "small", Map.of("vocab_size", 256, "hidden_size", 512, "intermediate_size", 1376, "num_hidden_layers", 8,
          "num_attention_heads", 8, "num_key_value_heads", 4));

  public int qDim() { return heads * headDim; }
  public int kvDim() { return kvHeads * headDim; }

  /** The sizes for {@code spec}: preset or pretrained config.json, then model.config on top. */
  public static LlamaConfig of(TrainingSpec spec) {
    Map<String, Object> user = spec.model().config();
    for (String k : user.keySet()) {
      if (!KEYS.contains(k)) throw new SpecException("model.config." + k, "unknown Llama setting; known: " + new java.util.TreeSet<>(KEYS));
    }
    Map<String, Object> merged = new LinkedHashMap<>();
    if (spec.model().hasPretrained()) {
      JsonNode hf = HfCheckpoint.config(Path.of(spec.model().pretrained()), "model.pretrained");
      checkArchitecture(hf);
      Json.PLAIN.convertValue(hf, Map.class).forEach((k, v) -> merged.put(String.valueOf(k), v));
    } else {
      String size = String.valueOf(user.getOrDefault("size", "tiny"));
      Map<String, Object> preset = SIZES.get(size);
      if (preset == null) throw new SpecException("model.config.size", "'" + size + "' is not a Llama size; use one of " + SIZES.keySet());
      merged.putAll(preset);
    }
    merged.putAll(user);
    int hidden = positive(merged, "hidden_size", null), heads = positive(merged, "num_attention_heads", null);
    if (!merged.containsKey("head_dim") && hidden % heads != 0) {
      throw new SpecException("model.config.num_attention_heads", heads + " does not divide hidden_size=" + hidden);
    }
    return new LlamaConfig(positive(merged, "vocab_size", null), hidden, positive(merged, "intermediate_size", null),
        positive(merged, "num_hidden_layers", null), heads, positive(merged, "num_key_value_heads", heads),
        positive(merged, "head_dim", hidden / heads), number(merged, "rms_norm_eps", 1e-6), number(merged, "rope_theta", 10000.0),
        Boolean.TRUE.equals(merged.getOrDefault("tie_word_embeddings", false)), number(merged, "initializer_range", 0.02),
        spec.data().seqLen());
  }

  /** Refuses the config.json variants this implementation does not compute (rather than computing them wrongly). */
  private static void checkArchitecture(JsonNode hf) {
    String type = hf.path("model_type").asText("");
    if (!"llama".equals(type)) throw new SpecException("model.pretrained", "config.json says model_type '" + type + "'; model.factory llama reads 'llama'");
    if (!hf.path("hidden_act").asText("silu").equals("silu")) {
      throw new SpecException("model.pretrained", "hidden_act '" + hf.path("hidden_act").asText() + "' is not supported; Llama uses silu");
    }
    if (hf.hasNonNull("rope_scaling")) throw new SpecException("model.pretrained", "rope_scaling is not supported yet; use a model without it");
    if (hf.path("attention_bias").asBoolean(false) || hf.path("mlp_bias").asBoolean(false)) {
      throw new SpecException("model.pretrained", "attention_bias / mlp_bias are not supported; Llama's projections have no bias");
    }
  }

  /** config.json for these sizes, as transformers' LlamaConfig writes it. */
  public ObjectNode toHf(String torchDtype) {
    ObjectNode c = Json.PLAIN.createObjectNode();
    c.putArray("architectures").add("LlamaForCausalLM");
    c.put("model_type", "llama");
    c.put("vocab_size", vocab).put("hidden_size", hidden).put("intermediate_size", intermediate)
        .put("num_hidden_layers", layers).put("num_attention_heads", heads).put("num_key_value_heads", kvHeads)
        .put("head_dim", headDim).put("hidden_act", "silu").put("max_position_embeddings", Math.max(seqLen, 2048))
        .put("rms_norm_eps", rmsEps).put("rope_theta", ropeTheta).put("tie_word_embeddings", tied)
        .put("initializer_range", initStd).put("attention_bias", false).put("mlp_bias", false).put("pretraining_tp", 1)
        .put("use_cache", true).put("torch_dtype", torchDtype);
    c.putNull("rope_scaling");
    return c;
  }

  /** The planner's view of these sizes. */
  public dev.weft.models.ModelShape shape() {
    return dev.weft.models.ModelShape.decoder(vocab, hidden, intermediate, layers, heads, kvHeads, headDim, false, false, tied);
  }

  /** Parameters of the whole model. */
  public long parameterCount() {
    long h = hidden;
    long block = h * qDim() + 2 * h * kvDim() + (long) qDim() * h + 3 * h * intermediate + 2 * h;
    return (long) vocab * h * (tied ? 1 : 2) + layers * block + h;
  }

  /** Training FLOPs per token: 6 × matmul weights + attention scores. */
  public double trainingFlopsPerToken() {
    double h = hidden;
    double matmul = layers * (h * qDim() + 2 * h * kvDim() + (double) qDim() * h + 3 * h * intermediate) + (double) vocab * h;
    return 6 * matmul + 6.0 * layers * seqLen * qDim();
  }

  private static int positive(Map<String, Object> m, String k, Integer dflt) {
    return dev.weft.models.ModelConfigs.positiveInt(m.get(k), "model.config." + k, dflt);
  }

  private static double number(Map<String, Object> m, String k, double dflt) {
    Object v = m.get(k);
    if (v == null) return dflt;
    if (v instanceof Number n && n.doubleValue() > 0 && Double.isFinite(n.doubleValue())) return n.doubleValue();
    throw new SpecException("model.config." + k, "'" + v + "' must be a positive number");
  }
}
