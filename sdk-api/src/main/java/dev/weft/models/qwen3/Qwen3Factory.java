package dev.weft.models.qwen3;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.decoder.ConfigJson;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import java.util.Set;

/**
 * {@code model.factory: qwen3} — dense Qwen 3: Llama's decoder with a per-head RMSNorm on q and k
 * (before the rotation) and an explicit {@code head_dim} (transformers' default 128 when a
 * pretrained config.json omits it); {@code attention_bias} as Llama's.
 */
public final class Qwen3Factory extends DecoderFamily {
  @Override public String name() { return "qwen3"; }
  @Override protected String architecture() { return "Qwen3ForCausalLM"; }
  @Override protected Set<String> extraKeys() {
    return Set.of("attention_bias", "use_sliding_window", "sliding_window", "max_window_layers");
  }

  @Override
  protected DecoderConfig read(ConfigJson c) {
    c.refuse(c.bool("use_sliding_window", false), "use_sliding_window", "per-layer sliding windows are not supported; use false");
    if (c.pretrained() && !c.has("head_dim")) c.json().put("head_dim", 128);
    boolean attention = c.bool("attention_bias", false);
    return c.llamaLike().withBiases(attention, attention, false).withQkNorm(true);
  }

  @Override
  protected void writeExtras(ObjectNode n, DecoderConfig c) { n.put("attention_bias", c.qkvBias()); }
}
