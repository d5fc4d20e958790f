package dev.weft.models.decoder;

import static org.bytedeco.pytorch.global.torch.gelu;
import static org.bytedeco.pytorch.global.torch.silu;

import dev.weft.data.PackedDocuments;
import dev.weft.models.AttentionMask;
import dev.weft.models.KvCache;
import dev.weft.models.Layers;
import dev.weft.models.moe.MoeBlock;
import dev.weft.models.moe.RouterLosses;
import java.util.List;
import org.bytedeco.pytorch.Tensor;

/**
 * One pre-norm block: norm → attention (q/k/v with optional biases, optional per-head q/k norm,
 * rotary positions, grouped-query heads, causal with an optional window) → residual, norm → MLP
 * (SwiGLU or GELU, or a MoE block on the config's sparse layers) → residual. This rank's heads and MLP columns are whatever its {@link Layers} split gives it.
 */
final class DecoderLayer {
  private final DecoderConfig cfg;
  private final Layers layers;
  private final Rotary rotary;
  private final AttentionMask mask;
  private final int index, localHeads, localKv;
  private final Layers.Linear inNorm, o, qNorm, kNorm, postNorm, up, down;
  private final Layers.Columns qkv, gateUp;
  private final MoeBlock moe;
  private final RouterLosses routerStats;

  DecoderLayer(DecoderConfig cfg, DecoderNames n, Layers layers, Rotary rotary, int i, long seed, RouterLosses routerStats) {
    this.cfg = cfg;
    this.layers = layers;
    this.rotary = rotary;
    this.index = i;
    this.mask = AttentionMask.causal(cfg.slidingWindow());
    this.localHeads = cfg.heads() / layers.splits();
    this.localKv = cfg.kvHeads() / layers.splits();
    long h = cfg.hidden(), f = cfg.intermediate();
    double std = cfg.initStd();
    inNorm = norm(n.layer(i, n.inNorm()));
    qkv = layers.columnParts(List.of(n.layer(i, n.q()), n.layer(i, n.k()), n.layer(i, n.v())), h,
        new long[] {cfg.qDim(), cfg.kvDim(), cfg.kvDim()}, std, cfg.qkvBias());
    o = layers.row(n.layer(i, n.o()), cfg.qDim(), h, std, cfg.oBias());
    qNorm = cfg.qkNorm() ? layers.headNorm(n.layer(i, n.qNorm()), cfg.headDim(), cfg.normEps()) : null;
    kNorm = cfg.qkNorm() ? layers.headNorm(n.layer(i, n.kNorm()), cfg.headDim(), cfg.normEps()) : null;
    postNorm = norm(n.layer(i, n.postNorm()));
    this.routerStats = routerStats;
    moe = cfg.sparse(i) ? new MoeBlock(cfg.moe(), n.layer(i, ""), layers, h, std, seed) : null;
    if (moe != null) {
      gateUp = null;
      up = down = null;
      return;
    }
    boolean swiglu = cfg.mlp() == DecoderConfig.Mlp.SWIGLU;
    gateUp = swiglu ? layers.columnParts(List.of(n.layer(i, n.gate()), n.layer(i, n.up())), h, new long[] {f, f}, std, cfg.mlpBias()) : null;
    up = swiglu ? null : layers.column(n.layer(i, n.up()), h, f, std, cfg.mlpBias());
    down = layers.row(n.layer(i, n.down()), f, h, std, cfg.mlpBias());
  }

  private Layers.Linear norm(String name) {
    return cfg.norm() == DecoderConfig.Norm.RMS ? layers.rmsNorm(name, cfg.hidden(), cfg.normEps()) : layers.layerNorm(name, cfg.hidden());
  }

  /**
   * x may hold only part of the sequence (sequence parallelism); q, k, v always see all of it, and so do
   * {@code docs} (packed samples: per-document positions and ids; null: one document from position 0 or the cache).
   */
  Tensor forward(Tensor x, KvCache cache, PackedDocuments docs) {
    long b = x.size(0), d = cfg.headDim();
    Tensor[] qkvs = qkv.forward(inNorm.forward(x));
    long qw = localHeads * d;
    long start = cache == null ? 0 : cache.length();
    Tensor q = heads(qkvs[0], b, localHeads), k = heads(qkvs[1], b, localKv);
    if (qNorm != null) {
      q = qNorm.forward(q);
      k = kNorm.forward(k);
    }
    if (rotary != null && docs != null) {
      q = rotary.apply(q, docs.positions());
      k = rotary.apply(k, docs.positions());
    } else if (rotary != null) { // learned positions were added to the embedding instead
      q = rotary.apply(q, start);
      k = rotary.apply(k, start);
    }
    Tensor v = heads(qkvs[2], b, localKv);
    if (cache != null) {
      Tensor[] kv = cache.append(index, k, v);
      k = kv[0];
      v = kv[1];
    }
    Tensor att = layers.attention(q, k, v, docs == null ? mask : mask.withDocuments(docs.ids()));
    x = x.add(o.forward(att.transpose(1, 2).reshape(b, -1, qw)));
    Tensor h = postNorm.forward(x);
    return x.add(moe != null ? moe.forward(h, routerStats) : down.forward(mlp(h)));
  }

  private Tensor mlp(Tensor h) {
    if (up != null) return gelu(up.forward(h));
    Tensor[] gu = gateUp.forward(h);
    return silu(gu[0]).mul(gu[1]);
  }

  private Tensor heads(Tensor y, long b, long n) {
    return y.view(b, -1, n, cfg.headDim()).transpose(1, 2);
  }
}
