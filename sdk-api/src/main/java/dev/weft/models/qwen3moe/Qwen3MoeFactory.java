package dev.weft.models.qwen3moe;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.decoder.ConfigJson;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import dev.weft.models.decoder.MoeJson;
import dev.weft.models.moe.MoeNames;
import java.util.HashSet;
import java.util.Set;

/**
 * {@code model.factory: qwen3_moe} — Qwen 3's decoder (per-head q/k norms, {@code head_dim}, {@code attention_bias})
 * whose sparse layers hold {@code num_experts} experts of {@code moe_intermediate_size}, top
 * {@code num_experts_per_tok} renormalised with {@code norm_topk_prob}; no shared expert.
 */
public final class Qwen3MoeFactory extends DecoderFamily {
  @Override public String name() { return "qwen3_moe"; }
  @Override protected String architecture() { return "Qwen3MoeForCausalLM"; }
  @Override protected Set<String> extraKeys() {
    Set<String> k = new HashSet<>(MoeJson.KEYS);
    k.addAll(Set.of("num_experts", "moe_intermediate_size", "norm_topk_prob", "decoder_sparse_step", "mlp_only_layers",
        "attention_bias", "use_sliding_window", "sliding_window", "max_window_layers"));
    return k;
  }

  @Override
  protected DecoderConfig read(ConfigJson c) {
    c.refuse(c.bool("use_sliding_window", false), "use_sliding_window", "per-layer sliding windows are not supported; use false");
    boolean attention = c.bool("attention_bias", false);
    DecoderConfig d = c.llamaLike().withBiases(attention, attention, false).withQkNorm(true);
    return d.withMoe(MoeJson.read(c, "num_experts", 128, 8, c.positive("moe_intermediate_size", 768), c.bool("norm_topk_prob", false),
        0, c.positive("decoder_sparse_step", 1), c.layers("mlp_only_layers"), MoeNames.QWEN));
  }

  @Override
  protected void writeExtras(ObjectNode n, DecoderConfig c) { MoeJson.writeQwen(n, c, "attention_bias"); }
}
