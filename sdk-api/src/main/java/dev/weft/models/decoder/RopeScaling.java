package dev.weft.models.decoder;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.spec.SpecException;
import java.util.List;

/**
 * Rotary frequencies as Hugging Face's {@code modeling_rope_utils} computes them: {@code default},
 * {@code linear} (positions divided by factor), {@code dynamic} (NTK: the base grows once a sequence
 * passes {@code max_position_embeddings}), {@code llama3} (low frequencies divided by factor, high ones
 * kept, a smooth ramp between) and {@code yarn} (ramped interpolation, cos/sin scaled by its attention
 * factor). Read from either spelling of config.json: {@code rope_scaling} + {@code rope_theta} (the
 * Hub's) or {@code rope_parameters} holding {@code rope_theta} (transformers 5).
 */
public record RopeScaling(String type, double theta, double factor, double lowFreqFactor, double highFreqFactor,
                          int originalMax, int maxPositions, double attentionFactor, double betaFast, double betaSlow,
                          boolean truncate) {
  static final List<String> TYPES = List.of("default", "linear", "dynamic", "llama3", "yarn");

  /** Plain RoPE with base {@code theta}. */
  public static RopeScaling plain(double theta) {
    return new RopeScaling("default", theta, 1, 1, 1, 2048, 2048, 1, 32, 1, true);
  }

  /** The scaling config.json describes; a rope_type Weft does not compute is refused naming it. */
  public static RopeScaling of(JsonNode c, String field) {
    JsonNode p = c.path("rope_parameters").isObject() ? c.path("rope_parameters") : c.path("rope_scaling");
    String key = c.path("rope_parameters").isObject() ? "rope_parameters" : "rope_scaling";
    double theta = num(p, "rope_theta", num(c, "rope_theta", 10000.0));
    String type = p.path("rope_type").asText(p.path("type").asText("default"));
    int maxPos = c.hasNonNull("max_position_embeddings") ? c.get("max_position_embeddings").asInt() : 2048;
    int original = p.hasNonNull("original_max_position_embeddings") ? p.get("original_max_position_embeddings").asInt()
        : c.hasNonNull("original_max_position_embeddings") ? c.get("original_max_position_embeddings").asInt() : maxPos;
    if (!TYPES.contains(type)) {
      throw new SpecException(field, "config.json " + key + ".rope_type '" + type + "' is not supported; Weft computes " + TYPES);
    }
    if (num(p, "partial_rotary_factor", num(c, "partial_rotary_factor", 1.0)) != 1.0) {
      throw new SpecException(field, "config.json partial_rotary_factor is not supported; rotary embeddings cover the whole head here");
    }
    double factor = type.equals("default") ? 1 : p.hasNonNull("factor") ? p.get("factor").asDouble()
        : type.equals("yarn") ? (double) maxPos / original : Double.NaN;
    if (!(factor > 0)) throw new SpecException(field, "config.json " + key + " of rope_type " + type + " needs a positive factor");
    double attention = 1;
    if (type.equals("yarn")) {
      double mscale = num(p, "mscale", 0), all = num(p, "mscale_all_dim", 0);
      attention = p.hasNonNull("attention_factor") ? p.get("attention_factor").asDouble()
          : mscale != 0 && all != 0 ? yarnMscale(factor, mscale) / yarnMscale(factor, all) : yarnMscale(factor, 1);
    }
    return new RopeScaling(type, theta, factor, num(p, "low_freq_factor", 1), num(p, "high_freq_factor", 4), original, maxPos,
        attention, num(p, "beta_fast", 32), num(p, "beta_slow", 1), p.path("truncate").asBoolean(true));
  }

  private static double num(JsonNode n, String k, double dflt) {
    return n.hasNonNull(k) && n.get(k).isNumber() ? n.get(k).asDouble() : dflt;
  }

  private static double yarnMscale(double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * Math.log(scale) + 1.0; }

  /** Whether the frequencies change with the sequence's length (dynamic NTK past max_position_embeddings). */
  public boolean dependsOnLength(long length) { return type.equals("dynamic") && length > maxPositions; }

  /** The dim/2 inverse frequencies for a head of {@code dim}, for a forward whose positions end at {@code length}. */
  public double[] inverseFrequencies(int dim, long length) {
    double base = theta;
    if (dependsOnLength(length)) base = theta * Math.pow(factor * length / maxPositions - (factor - 1), dim / (dim - 2.0));
    double[] inv = new double[dim / 2];
    for (int i = 0; i < inv.length; i++) inv[i] = 1.0 / Math.pow(base, 2.0 * i / dim);
    switch (type) {
      case "linear" -> { for (int i = 0; i < inv.length; i++) inv[i] /= factor; }
      case "llama3" -> llama3(inv);
      case "yarn" -> yarn(inv, dim);
      default -> { }
    }
    return inv;
  }

  private void llama3(double[] inv) {
    double lowWave = originalMax / lowFreqFactor, highWave = originalMax / highFreqFactor;
    for (int i = 0; i < inv.length; i++) {
      double wave = 2 * Math.PI / inv[i];
      if (wave > lowWave) {
        inv[i] /= factor;
      } else if (wave >= highWave) { // between the two wavelengths: interpolate smoothly
        double smooth = (originalMax / wave - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
        inv[i] = (1 - smooth) * inv[i] / factor + smooth * inv[i];
      }
    }
  }

  private void yarn(double[] inv, int dim) {
    double low = correctionDim(betaFast, dim), high = correctionDim(betaSlow, dim);
    if (truncate) {
      low = Math.floor(low);
      high = Math.ceil(high);
    }
    low = Math.max(low, 0);
    high = Math.min(high, dim - 1);
    if (low == high) high += 0.001;
    for (int i = 0; i < inv.length; i++) {
      double ramp = Math.min(1, Math.max(0, (i - low) / (high - low)));
      double extrapolation = 1 - ramp;
      inv[i] = inv[i] / factor * (1 - extrapolation) + inv[i] * extrapolation;
    }
  }

  private double correctionDim(double rotations, int dim) {
    return dim * Math.log(originalMax / (rotations * 2 * Math.PI)) / (2 * Math.log(theta));
  }
}
