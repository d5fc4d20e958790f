package dev.weft.data;

/**
 * Preference pairs as samples: sample 2k is the chosen answer of the epoch's k-th pair (a seeded permutation per
 * epoch, as {@link Windows}), sample 2k + 1 its rejected one, so consecutive samples (one micro-batch of an even
 * size) hold whole pairs. A document longer than {@code seqLen + 1} tokens is cut at its end (its prompt kept); a
 * shorter one is padded with token 0 that is no target. The pad comes after the document, so causal attention keeps
 * it out of every real token's log-probability.
 */
final class PreferencePairs implements TokenSource {
  private final TokenArray tokens;
  private final TokenArray flags;
  private final long[] starts;
  private final String what;
  private final long vocab;
  private final int seqLen;
  private final long seed;
  private final long pairs;

  PreferencePairs(TokenArray tokens, TokenArray flags, long[] starts, String what, long vocab, int seqLen, long seed) {
    this.tokens = tokens;
    this.flags = flags;
    this.starts = starts;
    this.what = what;
    this.vocab = vocab;
    this.seqLen = seqLen;
    this.seed = seed;
    this.pairs = (starts.length - 1) / 2;
  }

  @Override
  public void sample(long index, int[] out) { sample(index, out, new boolean[out.length]); }

  @Override
  public void sample(long index, int[] out, boolean[] targets) {
    if (out.length != seqLen + 1) throw new IllegalArgumentException("samples of " + what + " are " + (seqLen + 1) + " tokens, not " + out.length);
    long epoch = index / 2 / pairs, k = index / 2 % pairs;
    long pair = new Shuffle(pairs, Shuffle.mix(seed ^ Shuffle.mix(epoch + 1))).at(k);
    int doc = Math.toIntExact(2 * pair + index % 2);
    int n = (int) Math.min(out.length, starts[doc + 1] - starts[doc]);
    int[] ids = new int[n], f = new int[n];
    tokens.read(starts[doc], ids);
    flags.read(starts[doc], f);
    java.util.Arrays.fill(out, 0);
    java.util.Arrays.fill(targets, false);
    System.arraycopy(ids, 0, out, 0, n);
    for (int t = 0; t < n; t++) targets[t] = f[t] != 0;
  }

  @Override public long distinctSamples() { return 2 * pairs; }

  @Override public long vocabSize() { return vocab; }

  @Override
  public String describe() { return what + " (" + pairs + " pairs, samples of " + (seqLen + 1) + " tokens)"; }
}
