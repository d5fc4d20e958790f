package dev.weft.models.qwen2moe;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.decoder.ConfigJson;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import dev.weft.models.decoder.MoeJson;
import dev.weft.models.moe.MoeNames;
import java.util.HashSet;
import java.util.Set;

/**
 * {@code model.factory: qwen2_moe} — Qwen 2's decoder (q/k/v biases, {@code qkv_bias}) whose sparse layers
 * ({@code decoder_sparse_step}, not in {@code mlp_only_layers}) hold {@code num_experts} experts of
 * {@code moe_intermediate_size}, top {@code num_experts_per_tok} renormalised only with {@code norm_topk_prob},
 * plus a shared expert of {@code shared_expert_intermediate_size} behind a sigmoid gate; dense layers keep
 * {@code intermediate_size}.
 */
public final class Qwen2MoeFactory extends DecoderFamily {
  @Override public String name() { return "qwen2_moe"; }
  @Override protected String architecture() { return "Qwen2MoeForCausalLM"; }
  @Override protected Set<String> extraKeys() {
    Set<String> k = new HashSet<>(MoeJson.KEYS);
    k.addAll(Set.of("num_experts", "moe_intermediate_size", "shared_expert_intermediate_size", "norm_topk_prob",
        "decoder_sparse_step", "mlp_only_layers", "qkv_bias", "use_sliding_window", "sliding_window", "max_window_layers"));
    return k;
  }

  @Override
  protected DecoderConfig read(ConfigJson c) {
    c.refuse(c.bool("use_sliding_window", false), "use_sliding_window", "per-layer sliding windows are not supported; use false");
    DecoderConfig d = c.llamaLike().withBiases(c.bool("qkv_bias", true), false, false);
    int shared = c.has("shared_expert_intermediate_size") ? c.positive("shared_expert_intermediate_size", null) : 0;
    return d.withMoe(MoeJson.read(c, "num_experts", 60, 4, c.positive("moe_intermediate_size", 1408), c.bool("norm_topk_prob", false),
        shared, c.positive("decoder_sparse_step", 1), c.layers("mlp_only_layers"), MoeNames.QWEN));
  }

  @Override
  protected void writeExtras(ObjectNode n, DecoderConfig c) { MoeJson.writeQwen(n, c, "qkv_bias"); }

  /** The q/k/v biases come with qkv_bias (true when absent). */
  @Override
  protected String configKeyFor(String tensor) {
    return tensor.matches(".*\\.self_attn\\.[qkv]_proj\\.bias") ? "qkv_bias" : super.configKeyFor(tensor);
  }
}
