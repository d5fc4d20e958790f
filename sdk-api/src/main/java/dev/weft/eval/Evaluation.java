package dev.weft.eval;

import dev.weft.error.WeftException;
import dev.weft.data.Batches;
import dev.weft.data.TokenArray;
import dev.weft.data.TokenSource;
import dev.weft.models.LanguageModel;
import dev.weft.models.Targets;
import java.util.function.LongFunction;
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
  /** {@code loss} in nats per target token, {@code tokens} the targets scored, {@code perplexity} = exp(loss). */
  public record Result(double loss, long tokens, double perplexity) {}

  private static final int WINDOWS_PER_BATCH = 8;

  private Evaluation() {}

  public static Result run(LanguageModel model, TokenArray tokens, int seqLen) { return run(model, tokens, null, seqLen); }

  /**
   * As {@link #run(LanguageModel, TokenArray, int)}, where {@code flags} (one per token, as token shards of chat data
   * carry them; null: every token is a target) says which tokens are targets: the loss is over those alone.
   */
  public static Result run(LanguageModel model, TokenArray tokens, TokenArray flags, int seqLen) {
    long windows = (tokens.size() - 1L) / seqLen;
    if (windows < 1) {
      throw new dev.weft.spec.SpecException("--seq-len", "the data holds " + tokens.size() + " tokens, fewer than one window of --seq-len + 1 = "
          + (seqLen + 1) + "; use a shorter --seq-len or more data");
    }
    long vocab = model instanceof dev.weft.models.CausalLm lm ? lm.vocabSize() : Long.MAX_VALUE;
    long batches = (windows + WINDOWS_PER_BATCH - 1) / WINDOWS_PER_BATCH;
    return run(model, batches, i -> {
      long first = i * WINDOWS_PER_BATCH;
      int b = (int) Math.min(WINDOWS_PER_BATCH, windows - first);
      long[] in = new long[b * seqLen], out = new long[b * seqLen];
      int[] window = new int[seqLen + 1], targets = new int[seqLen + 1];
      java.util.Arrays.fill(targets, 1);
      for (int w = 0; w < b; w++) {
        tokens.read((first + w) * seqLen, window);
        if (flags != null) flags.read((first + w) * seqLen, targets);
        requireInVocabulary(window, (first + w) * seqLen, vocab);
        for (int t = 0; t < seqLen; t++) {
          in[w * seqLen + t] = window[t];
          out[w * seqLen + t] = targets[t + 1] != 0 ? window[t + 1] : Batches.IGNORE; // target t is token t + 1
        }
      }
      return new Batches.Batch(Tensors.ofLongs(in).view(b, seqLen), Tensors.ofLongs(out).view(b, seqLen));
    });
  }

  /**
   * Every sample of {@code samples} once, in batches ({@code seqLen + 1} tokens each): packed chat data is scored as it
   * trains, each conversation attending only to itself.
   */
  public static Result run(LanguageModel model, TokenSource samples, int seqLen) {
    long n = samples.distinctSamples();
    return run(model, (n + WINDOWS_PER_BATCH - 1) / WINDOWS_PER_BATCH, i -> Batches.make(samples, i * WINDOWS_PER_BATCH,
        (int) Math.min(WINDOWS_PER_BATCH, n - i * WINDOWS_PER_BATCH), seqLen));
  }

  /**
   * The loss over the targets of {@code count} batches ({@code batch.apply(i)}: inputs and targets [B, T], in host
   * memory; a target of {@link Batches#IGNORE} is no target): their summed cross-entropy over their number.
   */
  public static Result run(LanguageModel model, long count, LongFunction<Batches.Batch> batch) {
    double sum = 0;
    long targets = 0;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (long i = 0; i < count; i++) {
        try (PointerScope scope = new PointerScope()) {
          Batches.Batch b = batch.apply(i);
          sum += model.lossSum(b.tokens(), b.targets(), b.documents()).item_double();
          targets += Targets.count(b.targets());
        }
      }
    }
    if (targets == 0) throw new dev.weft.error.BadInputException("no token of the data is a target (every target is masked); there is no loss to report");
    double mean = sum / targets;
    return new Result(mean, targets, Math.exp(mean));
  }

  private static void requireInVocabulary(int[] ids, long offset, long vocab) {
    for (int i = 0; i < ids.length; i++) {
      if (ids[i] < 0 || ids[i] >= vocab) {
        throw new dev.weft.error.BadInputException("token " + ids[i] + " at position " + (offset + i) + " is outside the model's vocabulary of "
            + vocab + "; was the data tokenized for another model?");
      }
    }
  }
}
