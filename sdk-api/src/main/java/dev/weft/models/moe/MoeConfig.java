package dev.weft.models.moe;

import java.util.Set;

/**
 * A decoder's mixture-of-experts MLP as its family's config.json describes it: {@code experts} routed
 * experts of intermediate size {@code expertHidden}, {@code topK} chosen per token by a softmax router,
 * the chosen weights renormalised to sum to one when {@code normTopK} (Mixtral always, Qwen's
 * {@code norm_topk_prob}), an optional shared expert ({@code sharedHidden > 0}, Qwen 2 MoE) behind a
 * sigmoid gate, which layers are sparse ({@code (i + 1) % sparseStep == 0} and not in {@code denseLayers}),
 * the auxiliary load-balancing loss's coefficient ({@code router_aux_loss_coef}) and the router z-loss's
 * ({@code router_z_loss_coef}, 0 by default). {@code forceBalance} (Weft's {@code router_force_balance}, for
 * benchmarks only, as Megatron's {@code moe_router_force_load_balancing}) routes token i to experts
 * {@code (i·k + j) mod E} whatever the router prefers, weighted by the router's probabilities of those experts: every
 * expert gets the same rows, so a benchmark measures the layout's own cost, not a random router's skew.
 */
public record MoeConfig(int experts, int topK, int expertHidden, boolean normTopK, int sharedHidden, int sparseStep,
                        Set<Integer> denseLayers, double auxCoef, double zCoef, MoeNames names, boolean forceBalance) {
  public MoeConfig {
    denseLayers = Set.copyOf(denseLayers);
  }

  /** Whether decoder layer {@code i} has the MoE block (else the dense MLP of intermediate_size). */
  public boolean sparse(int i) { return !denseLayers.contains(i) && (i + 1) % sparseStep == 0; }

  public boolean shared() { return sharedHidden > 0; }

  /** Whether the router's losses add anything to the training loss. */
  public boolean routerLosses() { return auxCoef > 0 || zCoef > 0; }
}
