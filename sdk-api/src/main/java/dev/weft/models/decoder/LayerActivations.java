package dev.weft.models.decoder;

import dev.weft.spec.LoraSpec;

/**
 * What one {@link DecoderLayer} holds per token from its forward until the step ends, in elements, counted from the
 * code: every tensor the forward makes through a Java handle lives in the step's PointerScope until the step closes
 * it (not only what autograd saves), so the count is each op's output (libtorch's fused norms and CPU attention keep
 * only a statistic per row beside it; the attention's output is laid out so that turning its heads back is a view). {@code whole}: what every tensor-parallel rank holds whole (norms, residuals, the row
 * projections' outputs); {@code split}: what lives inside the split attention and MLP. Measured against a worker's
 * resident bytes over one forward ({@code WEFT_ACTIVATION_PROBE}, docs/performance.md, issue 43). {@code backward}: what
 * the backward of a compressed base's projections hands the step's scope, which keeps it to the step's end: each
 * call's dX = dY·W, as wide as its input (the output's gradient is closed once dX is made, and the link's zero-padded
 * gradient lives in the hook's own scope).
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
    double attention = columns(new double[] {q, kv, kv}, r, targets(lora, n, n.q(), n.k(), n.v()), compressed)
        + (c.qkNorm() ? 2 * (q + kv) : 0)
        + (c.rope() != null ? 4.5 * (q + kv) : 0) // rotate-half: its negated half, the concatenation, two products, the sum
        + (c.kvHeads() < c.heads() ? 2 * q : 0)   // grouped keys and values repeated to every query head
        + q + c.heads()                            // the attention output and its log-sum-exp
        + dropout * (h + q);
    double mlp;
    if (c.moe() != null) mlp = 4 * f; // not counted op by op yet: the routed experts' intermediates, as before
    else if (c.mlp() == DecoderConfig.Mlp.SWIGLU) {
      mlp = columns(new double[] {f, f}, r, targets(lora, n, n.gate(), n.up()), compressed) + 2 * f + dropout * (h + f); // SiLU, product
    } else {
      mlp = columns(new double[] {f}, r, targets(lora, n, n.up()), compressed) + f + dropout * (h + f); // GELU
    }
    // compressed: per projection call (q/k/v fused, o, gate/up fused or up, down) its dX, its input's width
    double backward = !compressed ? 0 : h + q + (c.moe() != null ? 0 : h + f);
    return new LayerActivations(whole, attention + mlp, backward);
  }

  /** A row projection's output; with an adapter also A's output, B's output and their sum. */
  private static double row(double out, double r, boolean adapted) {
    return adapted ? 3 * out + r : out;
  }

  /**
   * Column projections over one input. Uncompressed, each output apart, an adapter adding A's and B's outputs and the
   * sum; compressed, the fused output (the made weight's product, kept once through its link to the input), the
   * adapters' outputs side by side (zeros for an untargeted part), their concatenation and the sum.
   */
  static double columns(double[] outs, double r, boolean[] adapted, boolean compressed) {
    double all = 0, adapters = 0, count = 0;
    for (int i = 0; i < outs.length; i++) {
      all += outs[i];
      if (adapted[i]) {
        adapters += outs[i];
        count++;
      }
    }
    if (count == 0) return all;
    if (!compressed) return all + 2 * adapters + count * r;
    return all + all + count * r + all + all; // base, parts (zeros beside an untargeted one), concatenation, sum
  }

  private static boolean[] targets(LoraSpec lora, DecoderNames n, String... modules) {
    boolean[] out = new boolean[modules.length];
    for (int i = 0; i < modules.length; i++) out[i] = lora.enabled() && lora.targets(n.layer(0, modules[i]));
    return out;
  }
}
