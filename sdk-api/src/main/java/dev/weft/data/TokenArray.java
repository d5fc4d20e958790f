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

  /**
   * Opens a NumPy {@code .npy} file of token ids ({@code uint16} or {@code int32}; also {@code uint8}, {@code uint32};
   * little-endian, C order; any shape, read flattened) memory-mapped.
   */
  static TokenArray npy(Path file) { return Npy.open(file); }
}
