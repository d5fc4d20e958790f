package dev.weft.models.decoder;

import dev.weft.models.moe.MoeConfig;
import dev.weft.models.moe.MoeNames;
import java.util.Set;

/** The mixture-of-experts keys the MoE families share, read from their config.json into a {@link MoeConfig}. */
public final class MoeJson {
  /** Keys every MoE family reads besides its own. */
  public static final Set<String> KEYS = Set.of("num_experts_per_tok", "router_aux_loss_coef", "router_z_loss_coef",
      "output_router_logits", "router_force_balance");

  private MoeJson() {}

  /**
   * {@code experts} from {@code expertsKey}, top-k from num_experts_per_tok, the experts' intermediate size,
   * the shared expert's (0: none), the sparse layers, the losses' coefficients (aux default transformers' 0.001,
   * z 0) — checked against each other in one line each.
   */
  public static MoeConfig read(ConfigJson c, String expertsKey, int expertsDefault, int topKDefault, int expertHidden,
                               boolean normTopK, int sharedHidden, int sparseStep, Set<Integer> denseLayers, MoeNames names) {
    int experts = c.positive(expertsKey, expertsDefault), k = c.positive("num_experts_per_tok", topKDefault);
    if (k > experts) {
      throw new dev.weft.spec.SpecException(c.field("num_experts_per_tok"), "num_experts_per_tok=" + k + " exceeds " + expertsKey
          + "=" + experts + "; each token picks k of the experts");
    }
    return new MoeConfig(experts, k, expertHidden, normTopK, sharedHidden, sparseStep, denseLayers,
        c.nonNegative("router_aux_loss_coef", 0.001), c.nonNegative("router_z_loss_coef", 0), names,
        c.bool("router_force_balance", false));
  }

  /** The MoE keys of a Qwen MoE config.json written from sizes (qwen2_moe spells its biases qkv_bias, qwen3_moe attention_bias). */
  public static void writeQwen(com.fasterxml.jackson.databind.node.ObjectNode n, DecoderConfig c, String biasKey) {
    MoeConfig m = c.moe();
    n.put("num_experts", m.experts()).put("num_experts_per_tok", m.topK()).put("moe_intermediate_size", m.expertHidden())
        .put("norm_topk_prob", m.normTopK()).put("decoder_sparse_step", m.sparseStep()).put("router_aux_loss_coef", m.auxCoef())
        .put("use_sliding_window", false).put(biasKey, c.qkvBias());
    m.denseLayers().stream().sorted().forEach(n.putArray("mlp_only_layers")::add);
    if (m.shared()) n.put("shared_expert_intermediate_size", m.sharedHidden());
  }
}
