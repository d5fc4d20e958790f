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
 * Mean next-token cross-entropy of a model over the targets of a token sequence, scored one of two ways:
 * <ul>
 *   <li>{@link #documents}: each document (a conversation) on its own from its start, as the model would see it alone,
 *   up to its first {@code seqLen + 1} tokens; the targets past them are counted as cut, never scored out of context;</li>
 *   <li>{@link #windows}: windows of {@code seqLen + 1} tokens every {@code stride} tokens from the start of the
 *   sequence, each scoring only the targets the windows before it did not (the first window all of its own), so every
 *   target after the first window is predicted from at least {@code seqLen - stride} tokens before it; stride =
 *   seqLen gives consecutive non-overlapping windows (window i is tokens [i·seqLen, i·seqLen + seqLen]). The tail
 *   after the last whole window is cut.</li>
 * </ul>
 * Works for any {@link LanguageModel}: it needs only the loss.
 */
public final class Evaluation {
  /**
   * {@code loss} in nats per target, {@code tokens} the targets scored, {@code perplexity} = exp(loss), {@code cut} the
   * targets of the data left unscored (past a document's context, or the tail after the last window).
   */
  public record Result(double loss, long tokens, double perplexity, long cut) {
    public Result(double loss, long tokens, double perplexity) { this(loss, tokens, perplexity, 0); }

    Result withCut(long cut) { return new Result(loss, tokens, perplexity, cut); }
  }

  private static final int WINDOWS_PER_BATCH = 8;

  private Evaluation() {}

  public static Result run(LanguageModel model, TokenArray tokens, int seqLen) { return run(model, tokens, null, seqLen); }

  /**
   * Consecutive windows ({@link #windows} with stride {@code seqLen}), where {@code flags} (one per token, as token
   * shards of chat data carry them; null: every token is a target) says which tokens are targets.
   */
  public static Result run(LanguageModel model, TokenArray tokens, TokenArray flags, int seqLen) {
    return windows(model, tokens, flags, seqLen, seqLen);
  }

  /** Windows of {@code seqLen + 1} tokens every {@code stride} tokens (see the class comment); {@code flags} as in {@link #run}. */
  public static Result windows(LanguageModel model, TokenArray tokens, TokenArray flags, int seqLen, int stride) {
    if (stride < 1 || stride > seqLen) throw new dev.weft.spec.SpecException("--stride", stride + " must be from 1 to --seq-len " + seqLen);
    if (tokens.size() - 1L < seqLen) {
      throw new dev.weft.spec.SpecException("--seq-len", "the data holds " + tokens.size() + " tokens, fewer than one window of --seq-len + 1 = "
          + (seqLen + 1) + "; use a shorter --seq-len or more data");
    }
    long windows = (tokens.size() - 1L - seqLen) / stride + 1;
    long vocab = vocabOf(model);
    long batches = (windows + WINDOWS_PER_BATCH - 1) / WINDOWS_PER_BATCH;
    Result r = run(model, batches, i -> {
      long first = i * WINDOWS_PER_BATCH;
      int b = (int) Math.min(WINDOWS_PER_BATCH, windows - first);
      long[] in = new long[b * seqLen], out = new long[b * seqLen];
      int[] window = new int[seqLen + 1], targets = new int[seqLen + 1];
      java.util.Arrays.fill(targets, 1);
      for (int w = 0; w < b; w++) {
        long start = (first + w) * stride;
        tokens.read(start, window);
        if (flags != null) flags.read(start, targets);
        requireInVocabulary(window, start, vocab);
        int firstNew = first + w == 0 ? 0 : seqLen - stride; // the targets before it were scored by an earlier window
        for (int t = 0; t < seqLen; t++) {
          in[w * seqLen + t] = window[t];
          out[w * seqLen + t] = t >= firstNew && targets[t + 1] != 0 ? window[t + 1] : Batches.IGNORE; // target t is token t + 1
        }
      }
      return new Batches.Batch(Tensors.ofLongs(in).view(b, seqLen), Tensors.ofLongs(out).view(b, seqLen));
    });
    return r.withCut(targetsIn(flags, (windows - 1) * stride + seqLen + 1, tokens.size()));
  }

  /**
   * Each document of {@code tokens} ({@code ends}: the exclusive end offset of each, in order) scored alone from its
   * start: its first {@code seqLen + 1} tokens, its first token no one's target; the targets past them are cut.
   * {@code flags} as in {@link #run}.
   */
  public static Result documents(LanguageModel model, TokenArray tokens, TokenArray flags, long[] ends, int seqLen) {
    java.util.List<long[]> docs = new java.util.ArrayList<>(); // [start, scored end]
    long cut = 0, start = 0;
    for (long end : ends) {
      long scoredEnd = Math.min(end, start + seqLen + 1L);
      if (scoredEnd - start >= 2) docs.add(new long[] {start, scoredEnd});
      cut += targetsIn(flags, scoredEnd, end);
      start = end;
    }
    if (docs.isEmpty()) throw new dev.weft.error.BadInputException("no document of the data has two tokens; there is nothing to predict");
    long vocab = vocabOf(model);
    int n = docs.size();
    Result r = run(model, (n + WINDOWS_PER_BATCH - 1) / WINDOWS_PER_BATCH, i -> {
      int first = (int) (i * WINDOWS_PER_BATCH), b = Math.min(WINDOWS_PER_BATCH, n - first);
      int width = 0;
      for (int d = 0; d < b; d++) width = (int) Math.max(width, docs.get(first + d)[1] - docs.get(first + d)[0] - 1);
      long[] in = new long[b * width], out = new long[b * width];
      java.util.Arrays.fill(out, Batches.IGNORE); // right padding: token 0, no target, seen by no earlier token
      for (int d = 0; d < b; d++) {
        long[] doc = docs.get(first + d);
        int len = (int) (doc[1] - doc[0]);
        int[] ids = new int[len], targets = new int[len];
        tokens.read(doc[0], ids);
        if (flags != null) flags.read(doc[0], targets); else java.util.Arrays.fill(targets, 1);
        requireInVocabulary(ids, doc[0], vocab);
        for (int t = 0; t + 1 < len; t++) {
          in[d * width + t] = ids[t];
          if (targets[t + 1] != 0) out[d * width + t] = ids[t + 1];
        }
      }
      return new Batches.Batch(Tensors.ofLongs(in).view(b, width), Tensors.ofLongs(out).view(b, width));
    });
    return r.withCut(cut);
  }

  /** The targets among tokens [from, to): flagged ones, or all without flags. */
  private static long targetsIn(TokenArray flags, long from, long to) {
    if (to <= from) return 0;
    if (flags == null) return to - from;
    long n = 0;
    for (long j = from; j < to; j++) n += flags.get(j) != 0 ? 1 : 0;
    return n;
  }

  private static long vocabOf(LanguageModel model) {
    return model instanceof dev.weft.models.CausalLm lm ? lm.vocabSize() : Long.MAX_VALUE;
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
