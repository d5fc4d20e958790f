package dev.weft.models.moe;

import static org.bytedeco.pytorch.global.torch.silu;

import dev.weft.models.Experts;
import dev.weft.models.Init;
import dev.weft.models.Layers;
import java.util.List;
import org.bytedeco.pytorch.ScalarTypeOptional;
import org.bytedeco.pytorch.T_TensorTensor_T;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * A decoder layer's MoE MLP: the router (a linear to E logits, whole on every rank), softmax in fp32,
 * top-k, the family's normalisation of the chosen weights, the experts (a framework layer,
 * {@link Layers#experts}), plus the shared expert behind its sigmoid gate where the family has one.
 * The router's statistics go to the decoder's {@link RouterLosses}.
 */
public final class MoeBlock {
  private final MoeConfig cfg;
  private final long hidden;
  private final Layers.Linear router, sharedGateUp, sharedDown, sharedGate;
  private final Experts experts;

  /** {@code layer}: the layer's name prefix, ending with a dot. */
  public MoeBlock(MoeConfig cfg, String layer, Layers layers, long hidden, double std, long seed) {
    this.cfg = cfg;
    this.hidden = hidden;
    MoeNames n = cfg.names();
    router = whole(layers, n.router(layer), cfg.experts(), hidden, std, seed);
    experts = layers.experts(n.experts(layer), n.parts(), cfg.experts(), hidden, cfg.expertHidden(), std);
    if (cfg.shared()) {
      List<String> p = n.parts();
      sharedGateUp = layers.columns(List.of(n.shared(layer, p.get(0)), n.shared(layer, p.get(1))), hidden,
          new long[] {cfg.sharedHidden(), cfg.sharedHidden()}, std, false);
      sharedDown = layers.row(n.shared(layer, p.get(2)), cfg.sharedHidden(), hidden, std, false);
      sharedGate = whole(layers, n.sharedGate(layer), 1, hidden, std, seed);
    } else {
      sharedGateUp = sharedDown = sharedGate = null;
    }
  }

  /** A small linear every rank holds whole (its output, not its features, is what the block needs). */
  private static Layers.Linear whole(Layers layers, String name, long out, long in, double std, long seed) {
    return layers.replicated(name, Init.normalFull(seed, name + ".weight", std, out, in));
  }

  /** [tokens, k]: token i's experts (i·k + j) mod E, every expert alike (benchmarks only: {@link MoeConfig#forceBalance}). */
  static Tensor balanced(long tokens, int k, int experts) {
    return torch.arange(new org.bytedeco.pytorch.Scalar(tokens * k)).remainder(new org.bytedeco.pytorch.Scalar(experts)).reshape(tokens, k);
  }

  /** x [B, T, H] → [B, T, H]. */
  public Tensor forward(Tensor x, RouterLosses stats) {
    Tensor h = x.reshape(-1, hidden);
    Tensor logits = router.forward(h);
    Tensor probs = torch.softmax(logits, -1, new ScalarTypeOptional(ScalarType.Float));
    Tensor weight, index;
    if (cfg.forceBalance()) {
      index = balanced(h.size(0), cfg.topK(), cfg.experts()).to(h.device(), ScalarType.Long);
      weight = probs.gather(1, index);
    } else {
      T_TensorTensor_T top = torch.topk(probs, cfg.topK(), -1, true, true);
      weight = top.get0();
      index = top.get1();
    }
    if (cfg.normTopK()) weight = weight.div(weight.sum(new long[] {-1}, true, new ScalarTypeOptional()));
    Tensor out = experts.forward(h, index, weight.to(h.scalar_type()));
    if (stats != null) stats.add(logits.to(ScalarType.Float), probs, experts.lastCounts());
    if (sharedGateUp != null) {
      Tensor gu = sharedGateUp.forward(h.unsqueeze(0));
      long f = gu.size(2) / 2;
      Tensor s = sharedDown.forward(silu(gu.narrow(2, 0, f)).mul(gu.narrow(2, f, f))).squeeze(0);
      out = out.add(torch.sigmoid(sharedGate.forward(h)).mul(s));
    }
    return out.reshape(x.sizes());
  }
}
