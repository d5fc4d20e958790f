package dev.weft.models;

import static org.bytedeco.pytorch.global.torch.ScalarType.Float;

import dev.weft.util.Tensors;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.GradMode;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * The output head and its cross-entropy over chunks of {@code chunk} tokens, so the logits [tokens, vocab] never exist at
 * once, in the forward nor the backward. Each chunk's logits are made, reduced to its losses and (when anything needs a
 * gradient) turned into its gradients right away: d loss/d logits = softmax − one-hot of the target, zero on rows
 * without a target; dH = that · W and dW += thatᵀ · H. Those two gradients are handed to autograd through zero-valued
 * links, {@code dot(x, g) − dot(x, g).detach()}: the loss's value is unchanged (a − a = 0 exactly) and the backward
 * gives x the gradient g times the loss's own output gradient (a loss scale, DPO's weights), as an ordinary
 * parameter's gradient (ZeRO's ready hooks see it as any other). What a chunk needs across a vocabulary split (the
 * rows' maximum, the sums of exponentials, the target logits) a {@link Vocab} reduces, so the tensor-parallel head
 * runs the same pieces (the input's gradient then reduced by the column layer's f as usual).
 */
public final class ChunkedCrossEntropy {
  /** Tokens per chunk unless {@code train.lossChunk} says otherwise. */
  public static final int DEFAULT_TOKENS = 1024;

  private ChunkedCrossEntropy() {}

  /** Where the head's vocabulary rows live: all here, or this rank's block of a tensor-parallel split. */
  public interface Vocab {
    /** Each row's maximum over the whole vocabulary, in place. */
    void max(Tensor rowMax);

    /** Sums over the whole vocabulary, in place. */
    void sum(Tensor rowSums);

    /** True where the target is one of this rank's rows ({@link dev.weft.data.Batches#IGNORE} never is). */
    Tensor owns(Tensor targets);

    /** The targets as rows of this rank's block (any row where not owned: masked out). */
    Tensor localIds(Tensor targets, Tensor owned);

    /** The whole vocabulary on this rank. */
    static Vocab whole() {
      return new Vocab() {
        @Override public void max(Tensor rowMax) {}
        @Override public void sum(Tensor rowSums) {}
        @Override public Tensor owns(Tensor targets) { return Targets.mask(targets); }
        @Override public Tensor localIds(Tensor targets, Tensor owned) { return targets.mul(owned.to(targets.scalar_type())); }
      };
    }
  }

  /**
   * Whether {@code tokens} rows go through the chunks: more of them than one chunk ({@code chunk} 0: never), and no
   * zero-bubble recording open (its W action computes the head's dW from the saved input; the chunks compute it here).
   */
  public static boolean applies(long tokens, long chunk) {
    return chunk > 0 && tokens > chunk && !DeferredWeightGrads.recording();
  }

  /**
   * A frozen head weight [vocab, dim] held in another format than fp32 (a LoRA run's 16-bit embedding/head): its rows
   * made in fp32 a block at a time, so the whole fp32 weight never exists. It takes no gradient.
   */
  public interface MadeRows {
    /** The vocabulary: the weight's rows. */
    long rows();

    /** Rows made per call. */
    long blockRows();

    /** Rows [from, from + n) in fp32, [n, dim]; valid until the next call. */
    Tensor rows(long from, long n);

    /** The same rows in {@code type} (a 16-bit product's), valid until the next call. */
    default Tensor rows(long from, long n, org.bytedeco.pytorch.global.torch.ScalarType type) {
      Tensor r = rows(from, n);
      return r.scalar_type().value == type.value ? r : r.to(type);
    }
  }

  /** The cross-entropy of {@code hidden} [..., dim] · {@code w}ᵀ [vocab (this rank's), dim] against {@code targets} [...], summed over the targets. */
  public static Tensor lossSum(Tensor hidden, Tensor w, Tensor targets, long chunk, Vocab vocab) {
    boolean wGrad = GradMode.is_enabled() && w.requires_grad();
    Tensor wd = w.detach();
    Product whole = new Product() {
      @Override public Tensor logits(Tensor hc) {
        Tensor logits = torch.linear(hc, wd, new org.bytedeco.pytorch.TensorOptional());
        return logits.scalar_type() != Float ? logits.to(Float) : logits;
      }
      @Override public Tensor inputGrad(Tensor dLogits) { return dLogits.to(wd.scalar_type()).matmul(wd); }
    };
    return lossSum(hidden, whole, wGrad ? w : null, targets, chunk, vocab);
  }

  /**
   * As above over a frozen head made a block of rows at a time ({@code chunk} tokens per chunk; 0: all at once): each
   * chunk's logits filled block by block, its input gradient summed block by block; the whole vocabulary here.
   */
  public static Tensor lossSum(Tensor hidden, MadeRows w, Tensor targets, long chunk) {
    Product made = new Product() {
      @Override public Tensor logits(Tensor hc) { return ChunkedCrossEntropy.logits(hc, w); }
      @Override public Tensor inputGrad(Tensor dLogits) {
        Tensor g = torch.zeros(new long[] {dLogits.size(0), hidden.size(-1)}, new org.bytedeco.pytorch.TensorOptions(Float));
        for (long v0 = 0; v0 < w.rows(); v0 += w.blockRows()) {
          long n = Math.min(w.blockRows(), w.rows() - v0);
          // each block's product freed as it is summed (held to the chunk's end, a chunk of 512 tokens over
          // Llama-3.1-8B's 251 blocks held 2 GB); 16-bit under autocast (in-place addmm_ is not autocast): summed in fp32
          try (PointerScope block = new PointerScope()) {
            g.add_(dLogits.narrow(1, v0, n).matmul(w.rows(v0, n)));
          }
        }
        return g;
      }
    };
    long tokens = Math.max(1, targets.numel());
    return lossSum(hidden, made, null, targets, chunk > 0 ? chunk : tokens, Vocab.whole());
  }

  /** The logits [tokens, vocab] (fp32) of {@code hc} [tokens, dim] over {@code w}, filled a block of vocabulary rows at a time; no gradient. */
  public static Tensor logits(Tensor hc, MadeRows w) {
    Tensor logits = Tensors.empty(Float, hc.size(0), w.rows());
    try (NoGradGuard off = new NoGradGuard()) {
      for (long v0 = 0; v0 < w.rows(); v0 += w.blockRows()) {
        long n = Math.min(w.blockRows(), w.rows() - v0);
        try (PointerScope block = new PointerScope()) { // the block's product freed once copied
          Tensor rows = w.rows(v0, n, hc.scalar_type()); // 16-bit autocast hidden states: the rows in 16 bits
          logits.narrow(1, v0, n).copy_(hc.detach().matmul(rows.t()));
        }
      }
    }
    return logits;
  }

  /** The head's two products with the weight: a chunk's logits (fp32) and its input gradient. */
  private interface Product {
    Tensor logits(Tensor hc);

    Tensor inputGrad(Tensor dLogits);
  }

  private static Tensor lossSum(Tensor hidden, Product head, Tensor w, Tensor targets, long chunk, Vocab vocab) {
    Tensor h = hidden.reshape(-1, hidden.size(-1));
    Tensor tg = targets.reshape(-1);
    long n = h.size(0);
    boolean hGrad = GradMode.is_enabled() && hidden.requires_grad();
    boolean wGrad = w != null;
    Tensor perToken = torch.zeros(new long[] {n}, new org.bytedeco.pytorch.TensorOptions(Float));
    Tensor gH = hGrad ? torch.zeros_like(h) : null;
    Tensor gW = wGrad ? torch.zeros_like(w) : null;
    try (NoGradGuard off = new NoGradGuard()) {
      Tensor hd = h.detach(), wd = wGrad ? w.detach() : null;
      for (long r0 = 0; r0 < n; r0 += chunk) {
        try (PointerScope scope = new PointerScope()) {
          long len = Math.min(chunk, n - r0);
          Tensor hc = hd.narrow(0, r0, len), y = tg.narrow(0, r0, len);
          Tensor logits = head.logits(hc);
          Tensor max = logits.amax(new long[] {-1}, true);
          vocab.max(max);
          logits.sub_(max);
          Tensor owned = vocab.owns(y);
          Tensor ownedF = owned.to(Float);
          Tensor ids = vocab.localIds(y, owned).unsqueeze(1);
          Tensor picked = logits.gather(1, ids).squeeze(1).mul(ownedF);
          Tensor e = logits.exp_();
          Tensor sums = torch.stack(new TensorVector(e.sum(new long[] {-1}, false, new org.bytedeco.pytorch.ScalarTypeOptional()), picked));
          vocab.sum(sums);
          Tensor mask = Targets.mask(y).to(Float);
          perToken.narrow(0, r0, len).copy_(sums.select(0, 0).log().sub(sums.select(0, 1)).mul(mask));
          if (!hGrad && !wGrad) continue;
          Tensor dLogits = e.div_(sums.select(0, 0).unsqueeze(1)); // the softmax, in the exponentials' place
          dLogits.scatter_add_(1, ids, ownedF.neg().unsqueeze(1));
          dLogits.mul_(mask.unsqueeze(1));
          if (hGrad) gH.narrow(0, r0, len).copy_(head.inputGrad(dLogits));
          if (wGrad) gW.add_(dLogits.to(wd.scalar_type()).t().matmul(hc.to(wd.scalar_type())));
        }
      }
    }
    Tensor loss = perToken.sum();
    if (hGrad) loss = loss.add(link(h, gH));
    if (wGrad) loss = loss.add(link(w, gW));
    return loss;
  }

  /** Zero, whose gradient into {@code x} is {@code g} (times the output gradient). */
  private static Tensor link(Tensor x, Tensor g) {
    Tensor d = torch.dot(x.reshape(-1), g.reshape(-1));
    return d.sub(d.detach()).to(Float);
  }
}
