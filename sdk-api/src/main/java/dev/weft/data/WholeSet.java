package dev.weft.data;

/**
 * A finite source read once through, in batches of any size: a sample at or past its end is the last real one with
 * no target, so padding a batch to a common size adds nothing to a loss or to its count of targets.
 */
public final class WholeSet implements TokenSource {
  private final TokenSource inner;
  private final long size;

  private WholeSet(TokenSource inner, long size) {
    this.inner = inner;
    this.size = size;
  }

  /** {@code inner}'s distinct samples; null when it has no end ({@link TokenSource#distinctSamples()} unbounded). */
  public static WholeSet of(TokenSource inner) {
    long n = inner.distinctSamples();
    return n <= 0 || n == Long.MAX_VALUE ? null : new WholeSet(inner, n);
  }

  /** How many real samples there are. */
  public long size() { return size; }

  @Override public void sample(long index, int[] out) { inner.sample(Math.min(index, size - 1), out); }

  @Override public void sample(long index, int[] out, boolean[] targets) {
    inner.sample(Math.min(index, size - 1), out, targets);
    if (index >= size) java.util.Arrays.fill(targets, false);
  }

  @Override public boolean packed() { return inner.packed(); }

  @Override public void sample(long index, int[] out, boolean[] targets, int[] documents) {
    inner.sample(Math.min(index, size - 1), out, targets, documents);
    if (index >= size) java.util.Arrays.fill(targets, false);
  }

  @Override public String describe() { return inner.describe() + ", " + size + " samples read whole"; }
  @Override public long vocabSize() { return inner.vocabSize(); }
  @Override public String idOutside(long vocab) { return inner.idOutside(vocab); }
  @Override public long distinctSamples() { return size; }
}
