package dev.weft.data;

import java.util.Arrays;
import java.util.List;

/** Several token arrays read as one, end to end (the shards of a prepared dataset). */
final class ConcatTokens implements TokenArray {
  private final TokenArray[] parts;
  private final long[] starts;
  private final long size;

  ConcatTokens(List<TokenArray> parts) {
    this.parts = parts.toArray(TokenArray[]::new);
    this.starts = new long[this.parts.length];
    long n = 0;
    for (int i = 0; i < this.parts.length; i++) {
      starts[i] = n;
      n += this.parts[i].size();
    }
    this.size = n;
  }

  @Override
  public long size() { return size; }

  @Override
  public int get(long i) {
    if (i < 0 || i >= size) throw new IndexOutOfBoundsException("token " + i + " outside [0, " + size + ")");
    int p = part(i);
    return parts[p].get(i - starts[p]);
  }

  @Override
  public String where(long i) {
    int p = part(i);
    return parts[p].where(i - starts[p]);
  }

  @Override
  public void read(long from, int[] out) {
    int done = 0;
    while (done < out.length) {
      long at = from + done;
      int p = part(at);
      int n = (int) Math.min(out.length - done, parts[p].size() - (at - starts[p]));
      int[] piece = n == out.length ? out : new int[n];
      parts[p].read(at - starts[p], piece);
      if (piece != out) System.arraycopy(piece, 0, out, done, n);
      done += n;
    }
  }

  /** The last part starting at or before {@code i} that is not empty. */
  private int part(long i) {
    int k = Arrays.binarySearch(starts, i);
    if (k < 0) return -k - 2;
    while (k + 1 < starts.length && starts[k + 1] == i) k++; // skip empty parts
    return k;
  }
}
