package dev.weft.data;

import java.nio.file.Path;

/**
 * A read-only array of token ids addressed by {@code long} index, so arrays past 2 GB (and past
 * 2^31 tokens) read the same as small ones. Implementations map their file instead of loading it.
 */
public interface TokenArray {
  /** Number of tokens. */
  long size();

  /** Token {@code i}, {@code 0 <= i < size()}. */
  int get(long i);

  /** Copies tokens [{@code from}, {@code from + out.length}) into {@code out}. */
  default void read(long from, int[] out) {
    for (int k = 0; k < out.length; k++) out[k] = get(from + k);
  }

  /** Where token {@code i} is stored, for messages ("FILE token N" for a file). */
  default String where(long i) { return "token " + i; }

  /** The index of the first id outside [0, {@code vocab}), read in bulk; -1 when there is none. */
  default long firstOutside(long vocab) {
    int[] buf = new int[1 << 20];
    for (long from = 0; from < size(); from += buf.length) {
      int n = (int) Math.min(buf.length, size() - from);
      int[] b = n == buf.length ? buf : new int[n];
      read(from, b);
      for (int k = 0; k < n; k++) if (b[k] < 0 || b[k] >= vocab) return from + k;
    }
    return -1;
  }

  /** "FILE token N holds id X" for the first id outside [0, {@code vocab}); null when every id is inside. */
  static String outside(TokenArray a, long vocab) {
    long i = a.firstOutside(vocab);
    return i < 0 ? null : a.where(i) + " holds id " + a.get(i);
  }

  /**
   * Opens a NumPy {@code .npy} file of token ids ({@code uint16} or {@code int32}; also {@code uint8}, {@code uint32};
   * little-endian, C order; any shape, read flattened) memory-mapped.
   */
  static TokenArray npy(Path file) { return Npy.open(file); }
}
