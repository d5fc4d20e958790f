package dev.weft.models.moe;

import java.util.List;

/**
 * A family's names for a MoE block inside a decoder layer: the block's module ({@code block}), the router
 * under it, the experts' prefix and their gate/up/down parts, and the shared expert and its gate (null: none).
 * These are the Hub's per-expert names, which are also the decoder's parameter names; transformers 5's fused
 * layout is translated at the checkpoint's edge ({@link FusedExperts}).
 */
public record MoeNames(String block, String router, List<String> parts, String shared, String sharedGate) {
  public static final MoeNames MIXTRAL = new MoeNames("block_sparse_moe", "gate", List.of("w1", "w3", "w2"), null, null);
  public static final MoeNames QWEN = new MoeNames("mlp", "gate", List.of("gate_proj", "up_proj", "down_proj"),
      "shared_expert", "shared_expert_gate");

  public MoeNames {
    parts = List.copyOf(parts);
  }

  /** The router's module name in a layer ({@code layer} ends with a dot). */
  public String router(String layer) { return layer + block + "." + router; }

  /** The prefix of expert e's modules: {@code prefix + e + "." + part}. */
  public String experts(String layer) { return layer + block + ".experts."; }

  public String shared(String layer, String part) { return layer + block + "." + shared + "." + part; }

  public String sharedGate(String layer) { return layer + block + "." + sharedGate; }
}
