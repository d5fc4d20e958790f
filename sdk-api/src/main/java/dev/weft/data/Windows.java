package dev.weft.data;

import dev.weft.spec.SpecException;

/**
 * Samples cut from one long stream of tokens: window w is tokens [w·L, w·L + L] for L = seqLen
 * (neighbours share one token, the target of the last position). The last {@code validation}
 * fraction of windows is held out. Training sample i is window shuffle_e(i mod W) of epoch
 * e = i / W, a seeded permutation per epoch, so every window is read once per epoch and sample i
 * is a pure function of i; validation samples are the held-out windows in order. Token shards of chat data carry
 * a target flag per token ({@code flags}, 1 byte each, 0 = not a target), read with the same window.
 */
public final class Windows implements TokenSource {
  private final TokenArray tokens;
  private final TokenArray flags; // null: every token is a target
  private final String what;
  private final long vocab;
  private final int seqLen;
  private final long first;
  private final long count;
  private final long seed;
  private final boolean shuffled;

  private Windows(TokenArray tokens, TokenArray flags, String what, long vocab, int seqLen, long first, long count, long seed, boolean shuffled) {
    this.tokens = tokens;
    this.flags = flags;
    this.what = what;
    this.vocab = vocab;
    this.seqLen = seqLen;
    this.first = first;
    this.count = count;
    this.seed = seed;
    this.shuffled = shuffled;
  }

  /**
   * Splits {@code tokens} into training and validation windows of {@code seqLen + 1} tokens.
   * {@code what} names the data in messages and logs; ids are below {@code vocab} (0: not known).
   */
  public static Splits split(TokenArray tokens, String what, long vocab, int seqLen, double validation, long seed) {
    return split(tokens, null, what, vocab, seqLen, validation, seed);
  }

  /** As {@link #split(TokenArray, String, long, int, double, long)}, with a target flag per token ({@code flags}; null: none). */
  public static Splits split(TokenArray tokens, TokenArray flags, String what, long vocab, int seqLen, double validation,
                             long seed) {
    if (flags != null && flags.size() != tokens.size()) {
      throw new IllegalArgumentException(what + ": " + flags.size() + " target flags for " + tokens.size() + " tokens");
    }
    if (flags != null && flags.firstOutside(1) < 0) throw PackedSamples.nothingToLearn(what); // no flag is 1
    long windows = (tokens.size() - 1) / seqLen;
    long held = validation <= 0 ? 0 : Math.max(1, (long) Math.ceil(windows * validation));
    if (windows - held < 1) {
      throw new SpecException("data.seqLen", what + " has " + tokens.size() + " tokens: " + windows
          + " windows of data.seqLen + 1 = " + (seqLen + 1) + (held > 0 ? ", " + held + " of them held out for validation" : "")
          + ", leaving none to train on; lower data.seqLen or data.validation, or use more data");
    }
    Windows train = new Windows(tokens, flags, what, vocab, seqLen, 0, windows - held, seed, true);
    Windows val = held == 0 ? null : new Windows(tokens, flags, what + " (validation)", vocab, seqLen, windows - held, held, seed, false);
    return new Splits(train, val);
  }

  @Override
  public void sample(long index, int[] out) { tokens.read(start(index, out.length), out); }

  @Override
  public void sample(long index, int[] out, boolean[] targets) {
    long at = start(index, out.length);
    tokens.read(at, out);
    if (flags == null) {
      java.util.Arrays.fill(targets, true);
      return;
    }
    int[] f = new int[targets.length];
    flags.read(at, f);
    for (int k = 0; k < f.length; k++) targets[k] = f[k] != 0;
  }

  /** Where sample {@code index} starts in the token stream. */
  private long start(long index, int length) {
    if (length != seqLen + 1) throw new IllegalArgumentException("samples of " + what + " are " + (seqLen + 1) + " tokens, not " + length);
    long w = shuffled ? Shuffle.epochOrder(index, count, seed) : index % count;
    return (first + w) * seqLen;
  }

  @Override
  public long distinctSamples() { return count; }

  @Override
  public long vocabSize() { return vocab; }

  @Override
  public String idOutside(long vocab) { return TokenArray.outside(tokens, vocab); }

  @Override
  public String describe() {
    return what + " (" + count + " windows of " + (seqLen + 1) + " tokens" + (flags == null ? "" : ", with target flags") + ")";
  }
}
