package dev.weft.parallel.context;

import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Attention of one query chunk accumulated block by block (online softmax): each block's scores give an
 * unnormalised output Σ exp(s − m)·v, its row sums and its row maximum m; blocks merge by rescaling both
 * to the larger maximum, and the result is the output over the row sums. The maxima are detached: the
 * result does not depend on them, only its rounding does, so every other operation is an ordinary
 * differentiable one and autograd gives the exact gradient. A row a block masks entirely contributes
 * zero (its maximum is clamped to a finite floor, so exp(−∞ − m) is 0, never NaN).
 */
final class BlockSoftmax {
  private static final double FLOOR = -1e30;
  private final double scale;
  private Tensor out, sum, max;

  BlockSoftmax(long headDim) { this.scale = 1.0 / Math.sqrt(headDim); }

  /** Adds keys and values [B, H, n, d] for queries [B, H, c, d]; {@code visible} [c, n] or [B, 1, c, n] (null: all). */
  void add(Tensor q, Tensor k, Tensor v, Tensor visible) {
    Tensor s = torch.matmul(q, k.transpose(-2, -1)).mul(new Scalar(scale));
    if (visible != null) s = s.masked_fill(visible.logical_not(), new Scalar(Double.NEGATIVE_INFINITY));
    Tensor m = torch.amax(s.detach(), new long[] {-1}, true).clamp_min(new Scalar(FLOOR));
    Tensor p = torch.exp(s.sub(m));
    Tensor o = torch.matmul(p, v);
    Tensor l = p.sum(new long[] {-1}, true, new org.bytedeco.pytorch.ScalarTypeOptional());
    if (out == null) {
      out = o;
      sum = l;
      max = m;
      return;
    }
    Tensor top = torch.maximum(max, m);
    Tensor a = torch.exp(max.sub(top)), b = torch.exp(m.sub(top));
    out = out.mul(a).add(o.mul(b));
    sum = sum.mul(a).add(l.mul(b));
    max = top;
  }

  /** The attention output [B, H, c, d]. */
  Tensor result() { return out.div(sum); }
}
