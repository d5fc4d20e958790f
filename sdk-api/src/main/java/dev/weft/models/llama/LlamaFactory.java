package dev.weft.models.llama;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.decoder.ConfigJson;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import java.util.Set;

/**
 * {@code model.factory: llama} — Llama 2, 3, 3.1, 3.2, SmolLM2, TinyLlama: the decoder as config.json
 * describes it, RoPE scaling included; {@code attention_bias} puts biases on q, k, v and o,
 * {@code mlp_bias} on the MLP's projections.
 */
public final class LlamaFactory extends DecoderFamily {
  @Override public String name() { return "llama"; }
  @Override protected String architecture() { return "LlamaForCausalLM"; }
  @Override protected Set<String> extraKeys() { return Set.of("attention_bias", "mlp_bias", "pretraining_tp"); }

  @Override
  protected DecoderConfig read(ConfigJson c) {
    boolean attention = c.bool("attention_bias", false);
    return c.llamaLike().withBiases(attention, attention, c.bool("mlp_bias", false));
  }

  @Override
  protected void writeExtras(ObjectNode n, DecoderConfig c) {
    n.put("attention_bias", c.qkvBias()).put("mlp_bias", c.mlpBias());
  }
}
