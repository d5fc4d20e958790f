package dev.weft.data;

import dev.weft.spec.DataSpec;
import dev.weft.spec.SpecException;
import java.util.Arrays;
import java.util.List;

/**
 * Samples made of whole documents. Documents (their ends as the shards record them) are laid into windows of
 * {@code seqLen + 1} tokens: best-fit packed, several to a window ({@code pack}), or one per window ({@code pad});
 * a document longer than a window is cut into window-sized pieces, never dropped. The rest of a window is padding:
 * no target, a document of its own. Each token's document id goes with the sample, so attention stays inside a
 * document and positions restart at each one. The last {@code validation} fraction of windows is held out; training
 * sample i is window shuffle_e(i mod W) of epoch e = i / W, as for {@link Windows}.
 */
public final class PackedSamples implements TokenSource {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PackedSamples.class);
  private final TokenArray tokens;
  private final TokenArray flags; // null: every token is a target
  private final long[] starts; // per document
  private final List<BestFitPacking.Window> windows;
  private final String what;
  private final long vocab;
  private final int seqLen;
  private final long seed;
  private final boolean shuffled;
  private final boolean pack;

  private PackedSamples(TokenArray tokens, TokenArray flags, long[] starts, List<BestFitPacking.Window> windows, String what,
                        long vocab, int seqLen, long seed, boolean shuffled, boolean pack) {
    this.tokens = tokens;
    this.flags = flags;
    this.starts = starts;
    this.windows = windows;
    this.what = what;
    this.vocab = vocab;
    this.seqLen = seqLen;
    this.seed = seed;
    this.shuffled = shuffled;
    this.pack = pack;
  }

  /** Training and validation samples of the documents ending at {@code ends} (ascending, exclusive) in {@code tokens}. */
  public static Splits split(TokenArray tokens, TokenArray flags, long[] ends, boolean pack, String what, long vocab, int seqLen,
                             double validation, long seed) {
    return split(tokens, flags, ends, pack, what, vocab, seqLen, validation, seed, 0, DataSpec.SPLIT);
  }

  /**
   * As above; a document longer than {@code maxLength} (0: one sample) is cut into pieces ({@code split}), keeps its
   * first ({@code right}) or last ({@code left}) {@code maxLength} tokens, or is left out ({@code drop}).
   */
  public static Splits split(TokenArray tokens, TokenArray flags, long[] ends, boolean pack, String what, long vocab, int seqLen,
                             double validation, long seed, int maxLength, String truncation) {
    long[] starts = new long[ends.length], lengths = new long[ends.length];
    long limit = maxLength > 0 ? maxLength : seqLen + 1;
    int cut = 0;
    for (int d = 0; d < ends.length; d++) {
      starts[d] = d == 0 ? 0 : ends[d - 1];
      lengths[d] = ends[d] - starts[d];
      if (lengths[d] <= limit || DataSpec.SPLIT.equals(truncation)) continue;
      cut++;
      if ("left".equals(truncation)) starts[d] += lengths[d] - limit;
      lengths[d] = "drop".equals(truncation) ? 0 : limit;
    }
    if (cut > 0) log.info("{}: {} documents longer than {} tokens ({})", what, cut, limit, "drop".equals(truncation) ? "dropped"
        : "truncated, " + truncation);
    List<BestFitPacking.Window> all = pack ? BestFitPacking.pack(lengths, seqLen + 1) : BestFitPacking.alone(lengths, seqLen + 1);
    if (flags != null) all = withTargets(all, flags, starts, what);
    int count = all.size();
    int held = validation <= 0 ? 0 : (int) Math.max(1, Math.ceil(count * validation));
    if (count - held < 1) {
      throw new SpecException("data.validation", what + " makes " + count + " samples of whole documents"
          + (held > 0 ? ", " + held + " of them held out for validation" : "") + ", leaving none to train on; lower "
          + "data.validation or use more data");
    }
    String how = pack ? "packed" : "padded";
    PackedSamples train = new PackedSamples(tokens, flags, starts, all.subList(0, count - held), what + " (" + how + ")", vocab,
        seqLen, seed, true, pack);
    PackedSamples val = held == 0 ? null : new PackedSamples(tokens, flags, starts, all.subList(count - held, count),
        what + " (" + how + ", validation)", vocab, seqLen, seed, false, pack);
    return new Splits(train, val);
  }

  /**
   * The windows that hold a target: a sample with none (the prompt-only piece of a conversation longer than a window)
   * would be a step that learns nothing, its loss 0/0. Refused when no window has one.
   */
  private static List<BestFitPacking.Window> withTargets(List<BestFitPacking.Window> windows, TokenArray flags, long[] starts,
                                                         String what) {
    List<BestFitPacking.Window> kept = new java.util.ArrayList<>(windows.size());
    for (BestFitPacking.Window w : windows) if (hasTarget(w, flags, starts)) kept.add(w);
    if (kept.isEmpty()) throw nothingToLearn(what);
    if (kept.size() < windows.size()) {
      log.info("{}: {} of {} samples hold no target token (pieces of documents longer than a sample) and are left out", what,
          windows.size() - kept.size(), windows.size());
    }
    return kept;
  }

  /** Flagged data none of whose tokens is a target: every step would learn nothing (loss 0/0). */
  static SpecException nothingToLearn(String what) {
    return new SpecException("data.source", what + " holds no token to learn (every target flag is 0); prepare it with "
        + "assistant turns, or with --train-on all");
  }

  /** Whether a token after the first of some piece is flagged (a piece's first token is no one's target). */
  private static boolean hasTarget(BestFitPacking.Window w, TokenArray flags, long[] starts) {
    for (BestFitPacking.Piece p : w.pieces()) {
      int[] f = new int[p.length()];
      flags.read(starts[p.document()] + p.offset(), f);
      for (int k = 1; k < f.length; k++) if (f[k] != 0) return true;
    }
    return false;
  }

  /**
   * Padded samples hold one document followed by padding: plain causal attention from position 0 already keeps the
   * document's tokens to themselves (padding only follows them), so they need no document ids.
   */
  @Override
  public boolean packed() { return pack; }

  @Override
  public void sample(long index, int[] out) { sample(index, out, new boolean[out.length], new int[out.length]); }

  @Override
  public void sample(long index, int[] out, boolean[] targets) { sample(index, out, targets, new int[out.length]); }

  @Override
  public void sample(long index, int[] out, boolean[] targets, int[] documents) {
    if (out.length != seqLen + 1) throw new IllegalArgumentException("samples of " + what + " are " + (seqLen + 1) + " tokens, not " + out.length);
    BestFitPacking.Window w = window(index);
    int at = 0, id = 0;
    for (BestFitPacking.Piece p : w.pieces()) {
      int[] piece = new int[p.length()];
      long from = starts[p.document()] + p.offset();
      tokens.read(from, piece);
      System.arraycopy(piece, 0, out, at, piece.length);
      if (flags != null) flags.read(from, piece); else Arrays.fill(piece, 1);
      for (int k = 0; k < piece.length; k++) {
        targets[at + k] = piece[k] != 0;
        documents[at + k] = id;
      }
      at += piece.length;
      id++;
    }
    Arrays.fill(out, at, out.length, 0); // padding: no target, a document of its own
    Arrays.fill(targets, at, out.length, false);
    Arrays.fill(documents, at, out.length, id);
  }

  /** Tokens of sample {@code index} that belong to documents (the rest is padding). */
  public int documentTokens(long index) { return window(index).used(); }

  private BestFitPacking.Window window(long index) {
    long n = windows.size();
    return windows.get((int) (shuffled ? Shuffle.epochOrder(index, n, seed) : index % n));
  }

  @Override
  public long distinctSamples() { return windows.size(); }

  @Override
  public long vocabSize() { return vocab; }

  @Override
  public String idOutside(long vocab) { return TokenArray.outside(tokens, vocab); }

  @Override
  public String describe() {
    long used = windows.stream().mapToLong(BestFitPacking.Window::used).sum();
    return String.format(java.util.Locale.ROOT, "%s (%d samples of %d tokens, %.1f%% of them document tokens)", what,
        windows.size(), seqLen + 1, 100.0 * used / Math.max(1, (long) windows.size() * (seqLen + 1)));
  }
}
