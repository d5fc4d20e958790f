package dev.weft.models.mixtral;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.decoder.ConfigJson;
import dev.weft.models.decoder.DecoderConfig;
import dev.weft.models.decoder.DecoderFamily;
import dev.weft.models.decoder.MoeJson;
import dev.weft.models.moe.MoeNames;
import java.util.HashSet;
import java.util.Set;

/**
 * {@code model.factory: mixtral} — Mistral's decoder whose every MLP is a sparse MoE block:
 * {@code num_local_experts} SwiGLU experts of {@code intermediate_size}, {@code num_experts_per_tok}
 * chosen per token and their weights renormalised over the chosen ones; the Hub's
 * {@code block_sparse_moe.experts.N.w1/w2/w3} names (transformers 5's fused layout read and written too).
 */
public final class MixtralFactory extends DecoderFamily {
  @Override public String name() { return "mixtral"; }
  @Override protected String architecture() { return "MixtralForCausalLM"; }
  @Override protected Set<String> extraKeys() {
    Set<String> k = new HashSet<>(MoeJson.KEYS);
    k.addAll(Set.of("sliding_window", "num_local_experts", "router_jitter_noise"));
    return k;
  }

  @Override
  protected DecoderConfig read(ConfigJson c) {
    c.refuse(c.nonNegative("router_jitter_noise", 0) > 0, "router_jitter_noise", "router jitter is not supported; use 0");
    DecoderConfig d = c.llamaLike().withSlidingWindow(c.has("sliding_window") ? Integer.valueOf(c.positive("sliding_window", null)) : null);
    return d.withMoe(MoeJson.read(c, "num_local_experts", 8, 2, d.intermediate(), true, 0, 1, Set.of(), MoeNames.MIXTRAL));
  }

  @Override
  protected void writeExtras(ObjectNode n, DecoderConfig c) {
    n.put("num_local_experts", c.moe().experts()).put("num_experts_per_tok", c.moe().topK())
        .put("router_aux_loss_coef", c.moe().auxCoef()).putNull("sliding_window");
  }
}
