package dev.weft.models.decoder;

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
 * 2i, 2i+1), so weights loaded from and exported to Hugging Face need no permutation here. The
 * frequencies (and yarn's cos/sin scale) come from {@link RopeScaling}, in training and in generation.
 */
final class Rotary {
  private final int headDim;
  private final RopeScaling rope;
  private Tensor cos;
  private Tensor sin;

  /** Builds the table for positions below {@code positions} now (outside any step's PointerScope, so it outlives steps). */
  Rotary(int headDim, RopeScaling rope, long positions) {
    this.headDim = headDim;
    this.rope = rope;
    Tensor[] t = build(positions, 0);
    cos = t[0];
    sin = t[1];
  }

  /** {cos, sin} [positions, headDim] with the frequencies of a forward ending at {@code length} (0: the base ones). */
  private Tensor[] build(long positions, long length) {
    int half = headDim / 2;
    double[] inv = rope.inverseFrequencies(headDim, length);
    double scale = rope.attentionFactor();
    double[] c = new double[(int) positions * headDim], s = new double[c.length];
    for (int t = 0; t < positions; t++) {
      for (int i = 0; i < half; i++) {
        double angle = t * inv[i];
        int a = t * headDim + i;
        c[a] = c[a + half] = Math.cos(angle) * scale;
        s[a] = s[a + half] = Math.sin(angle) * scale;
      }
    }
    return new Tensor[] {Tensors.ofDoubles(c).view(positions, headDim).to(ScalarType.Float),
        Tensors.ofDoubles(s).view(positions, headDim).to(ScalarType.Float)};
  }

  /** {cos, sin} [T, headDim] for positions {@code start .. start + T - 1}, on {@code x}'s device. */
  private Tensor[] tableFor(Tensor x, long start, long length) {
    long end = start + length;
    if (rope.dependsOnLength(end)) { // dynamic NTK past the trained context: this forward's own frequencies
      Tensor[] t = build(end, end);
      return new Tensor[] {t[0].narrow(0, start, length).to(x.device(), ScalarType.Float),
          t[1].narrow(0, start, length).to(x.device(), ScalarType.Float)};
    }
    if (end > cos.size(0)) {
      Tensor[] t = build(Math.max(2 * cos.size(0), end), 0);
      cos = Tensors.keep(t[0]);
      sin = Tensors.keep(t[1]);
    }
    if (x.is_cuda() != cos.is_cuda()) {
      cos = Tensors.keep(cos.to(x.device(), ScalarType.Float));
      sin = Tensors.keep(sin.to(x.device(), ScalarType.Float));
    }
    return new Tensor[] {cos.narrow(0, start, length), sin.narrow(0, start, length)};
  }

  /** Applies the rotation to x [B, heads, T, headDim] at positions {@code start ..}. */
  Tensor apply(Tensor x, long start) {
    Tensor[] cs = tableFor(x, start, x.size(2));
    return rotate(x, cs[0].to(x.scalar_type()), cs[1].to(x.scalar_type()));
  }

  /** Applies the rotation to x [B, heads, T, headDim] at each token's own position {@code positions} [B, T]. */
  Tensor apply(Tensor x, Tensor positions) {
    long b = x.size(0), t = x.size(2);
    Tensor[] cs = tableFor(x, 0, t); // positions inside a sample of T tokens are below T
    // a context-parallel rank holds T of the sample's tokens but their positions reach the whole sequence, which the
    // table built for data.seqLen covers
    if (!rope.dependsOnLength(t)) cs = new Tensor[] {cos, sin};
    Tensor at = positions.reshape(-1).to(cs[0].device(), ScalarType.Long);
    Tensor c = cs[0].index_select(0, at).view(b, 1, t, headDim), s = cs[1].index_select(0, at).view(b, 1, t, headDim);
    return rotate(x, c.to(x.scalar_type()), s.to(x.scalar_type()));
  }

  private static Tensor rotate(Tensor x, Tensor c, Tensor s) {
    long half = x.size(3) / 2;
    Tensor rotated = torch.cat(new TensorVector(x.narrow(3, half, half).neg(), x.narrow(3, 0, half)), 3);
    return x.mul(c).add(rotated.mul(s));
  }
}
