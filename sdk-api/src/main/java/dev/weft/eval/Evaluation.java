package dev.weft.eval;

import dev.weft.error.WeftException;
import dev.weft.data.TokenArray;
import dev.weft.models.LanguageModel;
import dev.weft.util.Tensors;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.javacpp.PointerScope;

/**
 * Mean next-token cross-entropy of a model over a token sequence, cut into consecutive
 * non-overlapping windows of {@code seqLen + 1} tokens from the start (window i is tokens
 * [i·seqLen, i·seqLen + seqLen]; the last token of one window is the first of the next); a tail
 * shorter than a window is not scored. Works for any {@link LanguageModel}: it needs only the loss.
 */
public final class Evaluation {
  /** {@code loss} in nats per token, {@code tokens} scored, {@code perplexity} = exp(loss). */
  public record Result(double loss, long tokens, double perplexity) {}

  private static final int WINDOWS_PER_BATCH = 8;

  private Evaluation() {}

  public static Result run(LanguageModel model, TokenArray tokens, int seqLen) {
    long windows = (tokens.size() - 1L) / seqLen;
    if (windows < 1) {
      throw new WeftException("the data holds " + tokens.size() + " tokens, fewer than one window of --seq-len + 1 = "
          + (seqLen + 1) + "; use a shorter --seq-len or more data");
    }
    long vocab = model instanceof dev.weft.models.CausalLm lm ? lm.vocabSize() : Long.MAX_VALUE;
    double sum = 0;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (long first = 0; first < windows; first += WINDOWS_PER_BATCH) {
        int b = (int) Math.min(WINDOWS_PER_BATCH, windows - first);
        try (PointerScope scope = new PointerScope()) {
          long[] in = new long[b * seqLen], out = new long[b * seqLen];
          int[] window = new int[seqLen + 1];
          for (int w = 0; w < b; w++) {
            tokens.read((first + w) * seqLen, window);
            requireInVocabulary(window, (first + w) * seqLen, vocab);
            for (int i = 0; i < seqLen; i++) {
              in[w * seqLen + i] = window[i];
              out[w * seqLen + i] = window[i + 1];
            }
          }
          Tensor loss = model.loss(Tensors.ofLongs(in).view(b, seqLen), Tensors.ofLongs(out).view(b, seqLen));
          sum += loss.item_double() * b * seqLen;
        }
      }
    }
    long scored = windows * seqLen;
    double mean = sum / scored;
    return new Result(mean, scored, Math.exp(mean));
  }

  private static void requireInVocabulary(int[] ids, long offset, long vocab) {
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] < 0 || ids[i] >= vocab) {
        throw new WeftException("token " + ids[i] + " at position " + (offset + i) + " is outside the model's vocabulary of "
            + vocab + "; was the data tokenized for another model?");
      }
    }
  }
}
