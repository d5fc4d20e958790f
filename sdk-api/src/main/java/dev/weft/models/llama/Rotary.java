package dev.weft.models.llama;

import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * Rotary position embeddings in Hugging Face's convention: the head dimension is split in two
 * halves, and {@code x·cos + rotate_half(x)·sin} with {@code rotate_half([a, b]) = [-b, a]}, where
 * frequency i (of d/2) pairs element i with element i + d/2. Hugging Face's Llama checkpoints
 * have their q/k projection rows permuted to this layout (Meta's original pairs adjacent elements
 * 2i, 2i+1), so weights loaded from and exported to Hugging Face need no permutation here.
 */
final class Rotary {
  private final int headDim;
  private final double theta;
  private Tensor cos;
  private Tensor sin;

  /** Builds the table for positions below {@code positions} now (outside any step's PointerScope, so it outlives steps). */
  Rotary(int headDim, double theta, long positions) {
    this.headDim = headDim;
    this.theta = theta;
    build(positions);
  }

  private void build(long positions) {
    int half = headDim / 2;
    double[] c = new double[(int) positions * headDim], s = new double[c.length];
    for (int t = 0; t < positions; t++) {
      for (int i = 0; i < half; i++) {
        double angle = t / Math.pow(theta, 2.0 * i / headDim);
        int a = t * headDim + i;
        c[a] = c[a + half] = Math.cos(angle);
        s[a] = s[a + half] = Math.sin(angle);
      }
    }
    cos = Tensors.ofDoubles(c).view(positions, headDim).to(ScalarType.Float);
    sin = Tensors.ofDoubles(s).view(positions, headDim).to(ScalarType.Float);
  }

  /** {cos, sin} [T, headDim] for positions {@code start .. start + T - 1}; grows the table for long generations. */
  Tensor[] table(long start, long length) {
    if (start + length > cos.size(0)) build(Math.max(2 * cos.size(0), start + length));
    return new Tensor[] {cos.narrow(0, start, length), sin.narrow(0, start, length)};
  }

  /** As {@link #table}, on {@code x}'s device: the tables move there once (models stay device-agnostic). */
  private Tensor[] tableFor(Tensor x, long start, long length) {
    if (start + length > cos.size(0)) build(Math.max(2 * cos.size(0), start + length));
    if (x.is_cuda() != cos.is_cuda()) {
      cos = Tensors.keep(cos.to(x.device(), ScalarType.Float));
      sin = Tensors.keep(sin.to(x.device(), ScalarType.Float));
    }
    return new Tensor[] {cos.narrow(0, start, length), sin.narrow(0, start, length)};
  }

  /** Applies the rotation to x [B, heads, T, headDim] at positions {@code start ..}. */
  Tensor apply(Tensor x, long start) {
    Tensor[] cs = tableFor(x, start, x.size(2));
    Tensor c = cs[0].to(x.scalar_type()), s = cs[1].to(x.scalar_type());
    long half = x.size(3) / 2;
    Tensor rotated = torch.cat(new TensorVector(x.narrow(3, half, half).neg(), x.narrow(3, 0, half)), 3);
    return x.mul(c).add(rotated.mul(s));
  }
}
