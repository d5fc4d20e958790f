package dev.weft.models.gpt;

import dev.weft.spec.SpecException;
import java.util.Map;

/**
 * Sizes of the reference GPT. Named sizes fill defaults; explicit keys in model.config override them.
 * {@code activation} is {@code gelu} (exact) or {@code gelu_tanh} (GPT-2's approximation).
 */
public record GptConfig(int layers, int hidden, int heads, int mlpRatio, int vocab, int seqLen, String activation) {
  public GptConfig(int layers, int hidden, int heads, int mlpRatio, int vocab, int seqLen) {
    this(layers, hidden, heads, mlpRatio, vocab, seqLen, "gelu");
  }

  public static final Map<String, GptConfig> SIZES = Map.of(
      "tiny", new GptConfig(4, 128, 4, 4, 256, 0),
      "small", new GptConfig(8, 512, 8, 4, 256, 0));

  public int mlpHidden() { return hidden * mlpRatio; }
  public int headDim() { return hidden / heads; }

  /** Reads {@code model.config} ({@code size} plus optional overrides) with {@code data.seqLen} as context length. */
  public static GptConfig from(Map<String, Object> config, int seqLen) {
    String size = String.valueOf(config.getOrDefault("size", "tiny"));
    GptConfig base = SIZES.get(size);
    if (base == null) throw new SpecException("model.config.size", "'" + size + "' is not a GPT size; use one of " + SIZES.keySet());
    return over(base, config, seqLen);
  }

  /** The spec's sizes: from {@code model.pretrained}'s GPT-2 config.json when set, else {@link #from}; model.config overrides. */
  public static GptConfig of(dev.weft.spec.TrainingSpec spec) {
    if (!spec.model().hasPretrained()) return from(spec.model().config(), spec.data().seqLen());
    return over(Gpt2Format.config(spec), spec.model().config(), spec.data().seqLen());
  }

  private static GptConfig over(GptConfig base, Map<String, Object> config, int seqLen) {
    for (String k : config.keySet()) {
      if (!java.util.Set.of("size", "layers", "hidden", "heads", "mlpRatio", "vocab", "activation").contains(k)) {
        throw new SpecException("model.config." + k, "unknown GPT setting; known: size, layers, hidden, heads, mlpRatio, vocab, activation");
      }
    }
    String act = String.valueOf(config.getOrDefault("activation", base.activation));
    if (!act.equals("gelu") && !act.equals("gelu_tanh")) {
      throw new SpecException("model.config.activation", "'" + act + "' is not an activation; use gelu or gelu_tanh");
    }
    return new GptConfig(intOf(config, "layers", base.layers), intOf(config, "hidden", base.hidden),
        intOf(config, "heads", base.heads), intOf(config, "mlpRatio", base.mlpRatio), intOf(config, "vocab", base.vocab), seqLen, act);
  }

  private static int intOf(Map<String, Object> c, String k, int dflt) {
    return dev.weft.models.ModelConfigs.positiveInt(c.get(k), "model.config." + k, dflt);
  }

  /** Parameters of the whole model. */
  public long parameterCount() {
    long h = hidden, f = mlpHidden();
    long block = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h;
    return (long) vocab * h + (long) seqLen * h + layers * block + 2 * h + (long) vocab * h;
  }

  /**
   * The planner's view: per layer the q/k/v/proj and MLP matmuls with their column biases split over tp, the
   * two LayerNorms and the two row biases whole; learned positions; an untied head. Activations per token and
   * layer as Korthikanti et al. (2022) count a GPT layer (34·s·b·h bytes in 16 bits: 5·h elements whole, 12·h split).
   */
  public dev.weft.models.ModelShape shape() {
    double h = hidden, f = mlpHidden(), v = vocab;
    return new dev.weft.models.ModelShape(v, h, layers, 4 * h * h + 3 * h + 2 * h * f + f, 6 * h, v * h, (double) seqLen * h,
        2 * h, v * h, false, 5 * h, 12 * h, heads);
  }

  /** Training FLOPs per token: 6 × matmul weights + attention scores (Kaplan et al.). */
  public double trainingFlopsPerToken() {
    double h = hidden, f = mlpHidden();
    double matmulWeights = layers * (4 * h * h + 2 * h * f) + (double) vocab * h;
    return 6 * matmulWeights + 6.0 * layers * seqLen * h;
  }
}
