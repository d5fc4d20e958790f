package dev.weft.models.decoder;

import dev.weft.models.ModelShape;
import dev.weft.spec.LoraSpec;
import java.util.Map;

/**
 * A decoder config as the memory planner sees it: the parameters counted from the config's own tensor list
 * (so the plan counts exactly what the model builds), split over tp as the layers are (q/k/v/o and MLP
 * weights, column biases) or kept whole (norms, row biases, learned positions).
 */
final class DecoderShape {
  private DecoderShape() {}

  /**
   * The shape with LoRA's adapters (A [r, in], B [out, r] beside each target weight [out, in] of a layer): beside a
   * column base (q, k, v, gate, up) A is whole and B split; beside a row base (o, down) A is split and B whole.
   */
  static ModelShape of(DecoderConfig c, DecoderNames n, LoraSpec lora) {
    ModelShape base = of(c, n);
    if (!lora.enabled()) return base;
    double split = 0, replicated = 0;
    String layer0 = n.layer(0, "");
    for (var e : c.tensors(n).entrySet()) {
      String module = e.getKey().substring(0, e.getKey().length() - ".weight".length());
      if (!e.getKey().startsWith(layer0) || !e.getKey().endsWith(".weight") || !lora.targets(module)) continue;
      double a = lora.rank() * (double) e.getValue()[1], b = lora.rank() * (double) e.getValue()[0];
      boolean row = leaf(module).equals(leaf(n.o())) || leaf(module).equals(leaf(n.down())); // experts' down_proj too
      split += row ? a : b;
      replicated += row ? b : a;
    }
    LayerActivations acts = LayerActivations.of(c, n, lora);
    return base.withAdapters(split, replicated).withActivations(acts.whole(), acts.split(), acts.backward());
  }

  static ModelShape of(DecoderConfig c, DecoderNames n) {
    Map<String, long[]> t = c.tensors(n);
    double split = 0, replicated = 0;
    String layer0 = n.layer(0, "");
    for (var e : t.entrySet()) {
      if (!e.getKey().startsWith(layer0)) continue;
      String part = e.getKey().substring(layer0.length());
      boolean rowBias = part.equals(n.o() + ".bias") || part.equals(n.down() + ".bias");
      boolean matmul = part.startsWith(n.q() + ".") || part.startsWith(n.k() + ".") || part.startsWith(n.v() + ".")
          || part.startsWith(n.o() + ".") || part.startsWith(n.gate() + ".") || part.startsWith(n.up() + ".") || part.startsWith(n.down() + ".")
          || part.contains(".experts.") || part.contains(".shared_expert."); // MoE experts split like dense MLPs
      if (matmul && !rowBias) split += numel(e.getValue());
      else replicated += numel(e.getValue());
    }
    double h = c.hidden(), v = c.vocab();
    double positions = t.containsKey(n.positions() + ".weight") ? numel(t.get(n.positions() + ".weight")) : 0;
    double finalNorm = numel(t.get(n.finalNorm() + ".weight")) + (t.containsKey(n.finalNorm() + ".bias") ? h : 0);
    LayerActivations acts = LayerActivations.of(c, n, LoraSpec.off());
    // what DecoderLayer multiplies by at once: q, k and v fused; gate and up fused (SwiGLU); o; down (experts: bounded
    // by the layer)
    double f = c.intermediate(), qkv = h * (c.qDim() + 2.0 * c.kvDim());
    double largest = c.moe() != null ? split
        : Math.max(Math.max(qkv, h * c.qDim()), (c.mlp() == DecoderConfig.Mlp.SWIGLU ? 2 : 1) * h * f);
    return new ModelShape(v, h, c.layers(), split, replicated, v * h, positions, finalNorm, v * h, c.tied(), acts.whole(),
        acts.split(), c.heads()).withLargestProjection(largest);
  }

  static String leaf(String module) { return module.substring(module.lastIndexOf('.') + 1); }

  private static double numel(long[] shape) {
    double n = 1;
    for (long d : shape) n *= d;
    return n;
  }
}
