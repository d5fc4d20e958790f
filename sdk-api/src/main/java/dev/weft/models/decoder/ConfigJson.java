package dev.weft.models.decoder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.ModelConfigs;
import dev.weft.models.hf.HfCheckpoint;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A family's config.json as the run sees it: a size preset ({@code model.config.size}) or
 * {@code model.pretrained}'s config.json (with generation_config.json's stop tokens), and any key of
 * {@code model.config} on top, in config.json's own names. Typed reads name the field in errors.
 */
public record ConfigJson(ObjectNode json, boolean pretrained, int seqLen) {
  /** The keys every decoder family reads. */
  public static final Set<String> COMMON_KEYS = Set.of("size", "vocab_size", "hidden_size", "intermediate_size",
      "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "rms_norm_eps", "rope_theta",
      "rope_scaling", "rope_parameters", "max_position_embeddings", "tie_word_embeddings", "initializer_range",
      "eos_token_id", "hidden_act");

  /** Presets (in config.json terms) for runs that do not start from a pretrained directory. */
  static final Map<String, Map<String, Object>> SIZES = Map.of(
      "tiny", Map.of("vocab_size", 256, "hidden_size", 64, "intermediate_size", 176, "num_hidden_layers", 4,
          "num_attention_heads", 4, "num_key_value_heads", 2),
      "small", Map.of("vocab_size", 256, "hidden_size", 512, "intermediate_size", 1376, "num_hidden_layers", 8,
          "num_attention_heads", 8, "num_key_value_heads", 4));

  /** The merged config for {@code spec} of a family that reads {@code modelType} and knows {@code keys}. */
  public static ConfigJson of(TrainingSpec spec, String modelType, Set<String> keys) {
    Map<String, Object> user = spec.model().config();
    for (String k : user.keySet()) {
      if (!keys.contains(k)) throw new SpecException("model.config." + k, "unknown " + modelType + " setting; known: " + new TreeSet<>(keys));
    }
    ObjectNode merged = Json.PLAIN.createObjectNode();
    boolean pretrained = spec.model().hasPretrained();
    if (pretrained) {
      Path dir = Path.of(spec.model().pretrained());
      JsonNode hf = HfCheckpoint.config(dir, "model.pretrained");
      String type = hf.path("model_type").asText("");
      if (!modelType.equals(type)) {
        throw new SpecException("model.pretrained", "config.json says model_type '" + type + "'; model.factory " + spec.model().factory()
            + " reads '" + modelType + "' (a Hugging Face directory picks its family by model_type: use model.factory " + type + ")");
      }
      merged.setAll((ObjectNode) hf);
      JsonNode gen = HfCheckpoint.optionalJson(dir, "generation_config.json", "model.pretrained");
      if (gen != null && gen.hasNonNull("eos_token_id")) merged.set("eos_token_id", gen.get("eos_token_id"));
    } else {
      String size = String.valueOf(user.getOrDefault("size", "tiny"));
      Map<String, Object> preset = SIZES.get(size);
      if (preset == null) throw new SpecException("model.config.size", "'" + size + "' is not a " + modelType + " size; use one of " + SIZES.keySet());
      merged.setAll((ObjectNode) Json.PLAIN.valueToTree(preset));
    }
    merged.setAll((ObjectNode) Json.PLAIN.valueToTree(user));
    merged.remove("size");
    return new ConfigJson(merged, pretrained, spec.data().seqLen());
  }

  /** Where a key's value came from, for errors. */
  public String field(String key) {
    return pretrained ? "model.pretrained" : "model.config." + key;
  }

  public boolean has(String key) { return json.hasNonNull(key); }

  public int positive(String key, Integer dflt) {
    return ModelConfigs.positiveInt(json.path(key), "model.config." + key, dflt); // model.config.KEY overrides config.json's
  }

  public double number(String key, double dflt) {
    JsonNode v = json.path(key);
    if (v.isMissingNode() || v.isNull()) return dflt;
    if (v.isNumber() && v.asDouble() > 0 && Double.isFinite(v.asDouble())) return v.asDouble();
    throw new SpecException(field(key), key + " '" + v + "' must be a positive number");
  }

  /** A number ≥ 0 (a loss coefficient). */
  public double nonNegative(String key, double dflt) {
    JsonNode v = json.path(key);
    if (v.isMissingNode() || v.isNull()) return dflt;
    if (v.isNumber() && v.asDouble() >= 0 && Double.isFinite(v.asDouble())) return v.asDouble();
    throw new SpecException(field(key), key + " '" + v + "' must be a number >= 0");
  }

  /** A list of layer indices (absent or null: none). */
  public java.util.Set<Integer> layers(String key) {
    JsonNode v = json.path(key);
    java.util.Set<Integer> out = new java.util.TreeSet<>();
    if (v.isMissingNode() || v.isNull()) return out;
    if (!v.isArray()) throw new SpecException(field(key), key + " " + v + " must be a list of layer indices");
    v.forEach(e -> {
      if (!e.canConvertToInt() || e.asInt() < 0) throw new SpecException(field(key), key + " " + v + " must hold layer indices >= 0");
      out.add(e.asInt());
    });
    return out;
  }

  public boolean bool(String key, boolean dflt) {
    JsonNode v = json.path(key);
    if (v.isMissingNode() || v.isNull()) return dflt;
    if (v.isBoolean()) return v.asBoolean();
    throw new SpecException(field(key), key + " '" + v + "' must be true or false");
  }

  public String text(String key, String dflt) { return json.path(key).asText(dflt); }

  /** Refuses a key whose value this implementation does not compute (rather than computing it wrongly). */
  public void refuse(boolean when, String key, String why) {
    if (when) throw new SpecException(field(key), "config.json " + key + "=" + json.get(key) + ": " + why);
  }

  /** {@code eos_token_id}: an id, a list of ids, or absent (no stop token). */
  public List<Long> eos() {
    JsonNode v = json.path("eos_token_id");
    List<Long> out = new ArrayList<>();
    if (v.isIntegralNumber()) out.add(v.asLong());
    else if (v.isArray()) v.forEach(e -> out.add(e.asLong()));
    else if (!v.isMissingNode() && !v.isNull()) throw new SpecException(field("eos_token_id"), "eos_token_id " + v + " must be an id or a list of ids");
    return out;
  }

  /**
   * The Llama-shaped decoder these keys describe (RMSNorm, RoPE with its scaling, SwiGLU, no biases,
   * no q/k norm, no window); each family then sets what it adds.
   */
  public DecoderConfig llamaLike() {
    int hidden = positive("hidden_size", null), heads = positive("num_attention_heads", null);
    if (!has("head_dim") && hidden % heads != 0) {
      throw new SpecException(pretrained ? "model.pretrained" : "model.config.num_attention_heads",
          "num_attention_heads=" + heads + " does not divide hidden_size=" + hidden + " and there is no head_dim");
    }
    refuse(!text("hidden_act", "silu").equals("silu"), "hidden_act", "only silu (SwiGLU) is supported for this family");
    return new DecoderConfig(positive("vocab_size", null), hidden, positive("intermediate_size", null),
        positive("num_hidden_layers", null), heads, positive("num_key_value_heads", heads), positive("head_dim", hidden / heads),
        DecoderConfig.Norm.RMS, number("rms_norm_eps", 1e-6), RopeScaling.of(json, field("rope_scaling")), false, false, false,
        false, null, DecoderConfig.Mlp.SWIGLU, bool("tie_word_embeddings", false), number("initializer_range", 0.02), seqLen, eos());
  }
}
