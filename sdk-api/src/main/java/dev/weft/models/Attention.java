package dev.weft.models;

import static org.bytedeco.pytorch.global.torch.scaled_dot_product_attention;

import org.bytedeco.pytorch.DoubleOptional;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptional;
import org.bytedeco.pytorch.global.torch;

/**
 * Scaled dot-product attention on one rank: the plain version of {@link Layers#attention}. Queries
 * [B, H, T, d]; keys and values [B, KV, S, d] with KV dividing H (grouped-query attention: key/value
 * head j serves query heads j·H/KV … (j+1)·H/KV − 1).
 */
public final class Attention {
  private Attention() {}

  public static Tensor plain(Tensor q, Tensor k, Tensor v, AttentionMask mask) {
    long rep = q.size(1) / k.size(1);
    if (rep > 1) {
      k = torch.repeat_interleave(k, rep, new LongOptional(1), new LongOptional());
      v = torch.repeat_interleave(v, rep, new LongOptional(1), new LongOptional());
    }
    long t = q.size(2), s = k.size(2);
    boolean causal = mask.isPlainCausal(t, s);
    TensorOptional explicit = causal || mask.isUnmasked(t, s) ? new TensorOptional() : new TensorOptional(mask.visible(t, s, q));
    return scaled_dot_product_attention(q, k, v, explicit, 0.0, causal, new DoubleOptional(), false);
  }
}
