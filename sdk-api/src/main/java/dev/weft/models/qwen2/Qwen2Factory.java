package dev.weft.models.qwen2;

import dev.weft.models.decoder.ConfigJson;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import java.util.Set;

/** {@code model.factory: qwen2} — Qwen 2 and 2.5: Llama's decoder with biases on q, k and v (never on o). */
public final class Qwen2Factory extends DecoderFamily {
  @Override public String name() { return "qwen2"; }
  @Override protected String architecture() { return "Qwen2ForCausalLM"; }
  @Override protected Set<String> extraKeys() { return Set.of("use_sliding_window", "sliding_window", "max_window_layers"); }

  @Override
  protected DecoderConfig read(ConfigJson c) {
    c.refuse(c.bool("use_sliding_window", false), "use_sliding_window", "per-layer sliding windows are not supported; use false");
    return c.llamaLike().withBiases(true, false, false);
  }

  /** Qwen 2's q/k/v biases come with the model type, not with a config key. */
  @Override
  protected String configKeyFor(String tensor) {
    return tensor.matches(".*\\.self_attn\\.[qkv]_proj\\.bias") ? "model_type" : super.configKeyFor(tensor);
  }
}
