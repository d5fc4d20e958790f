package dev.weft.models.decoder;

import dev.weft.spec.LoraSpec;

/**
 * What one {@link DecoderLayer} holds per token from its forward until the step ends, in elements, counted from the
 * code: every tensor the forward makes through a Java handle lives in the step's PointerScope until the step closes
 * it (not only what autograd saves), so the count is each op's output (libtorch's fused norms and CPU attention keep
 * only a statistic per row beside it; the attention's output is laid out so that turning its heads back is a view), less
 * what LoRA's adapters close as they go. {@code whole}: what every tensor-parallel rank holds whole (norms, residuals, the row
 * projections' outputs); {@code split}: what lives inside the split attention and MLP. Measured against a worker's
 * resident bytes over one forward ({@code WEFT_ACTIVATION_PROBE}, docs/performance.md, issue 43). {@code backward}: what
 * the backward of a compressed base's projections holds beside autograd's own gradients: one call's dX = dY·W, as wide
 * as its input, until the next call's hook gives it back ({@code HandedToAutograd}).
 */
record LayerActivations(double whole, double split, double backward) {
  /** Per token and layer for config {@code c}, with LoRA's adapters beside its targets when {@code lora} is enabled. */
  static LayerActivations of(DecoderConfig c, DecoderNames n, LoraSpec lora) {
    double h = c.hidden(), f = c.intermediate(), q = c.qDim(), kv = c.kvDim(), r = lora.enabled() ? lora.rank() : 0;
    boolean compressed = lora.quantized();
    double whole = 2 * h + 2 * h // two norms' outputs, two residual sums
        + row(h, r, lora.enabled() && lora.targets(n.layer(0, n.o())))
        + (c.moe() != null ? 0 : row(h, r, lora.enabled() && lora.targets(n.layer(0, n.down()))));
    double dropout = lora.enabled() && lora.dropout() > 0 ? 2 : 0; // a mask and the masked input per adapted input
    double attention = columns(new double[] {q, kv, kv}, r, targets(lora, n, n.q(), n.k(), n.v()))
        + (c.qkNorm() ? 2 * (q + kv) : 0)
        + (c.rope() != null ? 4.5 * (q + kv) : 0) // rotate-half: its negated half, the concatenation, two products, the sum
        + (c.kvHeads() < c.heads() ? 2 * q : 0)   // grouped keys and values repeated to every query head
        + q + c.heads()                            // the attention output and its log-sum-exp
        + dropout * (h + q);
    double mlp;
    if (c.moe() != null) mlp = 4 * f; // not counted op by op yet: the routed experts' intermediates, as before
    else if (c.mlp() == DecoderConfig.Mlp.SWIGLU) {
      mlp = columns(new double[] {f, f}, r, targets(lora, n, n.gate(), n.up())) + 2 * f + dropout * (h + f); // SiLU, product
    } else {
      mlp = columns(new double[] {f}, r, targets(lora, n, n.up())) + f + dropout * (h + f); // GELU
    }
    // compressed: one projection call's dX at a time (each hook gives the previous one's back), the widest input's
    double backward = !compressed ? 0 : Math.max(Math.max(h, q), c.moe() != null ? 0 : f);
    return new LayerActivations(whole, attention + mlp, backward);
  }

  /**
   * A row projection's output; with an adapter the sum in its place and A's output (B's input, which B's backward
   * needs). The base's and B's outputs are closed as the sum is made (util.CallScope).
   */
  private static double row(double out, double r, boolean adapted) {
    return adapted ? out + r : out;
  }

  /**
   * Column projections over one input: their outputs (fused or apart); with adapters the sums in their place and each
   * A's output. The base's output, B's outputs and (compressed, fused) their concatenation are closed as the sum is
   * made (util.CallScope).
   */
  static double columns(double[] outs, double r, boolean[] adapted) {
    double all = 0, count = 0;
    for (int i = 0; i < outs.length; i++) {
      all += outs[i];
      if (adapted[i]) count++;
    }
    return all + count * r;
  }

  private static boolean[] targets(LoraSpec lora, DecoderNames n, String... modules) {
    boolean[] out = new boolean[modules.length];
    for (int i = 0; i < modules.length; i++) out[i] = lora.enabled() && lora.targets(n.layer(0, modules[i]));
    return out;
  }
}
