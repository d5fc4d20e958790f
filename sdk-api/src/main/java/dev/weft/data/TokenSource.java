package dev.weft.data;

import dev.weft.spec.DataSpec;

/**
 * A corpus addressed by sample index: sample i is always the same tokens, no matter how many ranks
 * read or in what order. That is what makes runs reproducible across layouts and lets a resumed run
 * continue at the exact sample.
 */
public interface TokenSource {
  /** Fills {@code out} with sample {@code index}: {@code out.length} = data.seqLen + 1 token ids. */
  void sample(long index, int[] out);

  /**
   * Fills {@code out} with sample {@code index} and {@code targets} with each token's target flag: false where
   * the token must not be learned (a prompt, a user turn; see {@link Batches#IGNORE}). Sources without flags keep
   * this default: every token is a target.
   */
  default void sample(long index, int[] out, boolean[] targets) {
    sample(index, out);
    java.util.Arrays.fill(targets, true);
  }

  /**
   * Whether samples are packed documents: then {@link #sample(long, int[], boolean[], int[])} also says which
   * document each token belongs to, and attention stays inside each document.
   */
  default boolean packed() { return false; }

  /**
   * As {@link #sample(long, int[], boolean[])}, with each token's document id in {@code documents} (ids are distinct
   * within the sample, consecutive tokens of one document share one). Sources that do not pack: all one document.
   */
  default void sample(long index, int[] out, boolean[] targets, int[] documents) {
    sample(index, out, targets);
    java.util.Arrays.fill(documents, 0);
  }

  /** A one-line description for logs. */
  String describe();

  /** Token ids are below this; 0 when the source does not know (a bare .npy array). */
  long vocabSize();

  /**
   * Where the first token id outside [0, {@code vocab}) lies ("FILE token N holds id X"), so training refuses data a
   * model cannot embed before it starts; null when every id is inside, or the source cannot tell.
   */
  default String idOutside(long vocab) { return null; }

  /** How many distinct samples there are before they repeat ({@link Long#MAX_VALUE} when endless). */
  default long distinctSamples() { return Long.MAX_VALUE; }

  /** The training split of {@code data}. */
  static TokenSource of(DataSpec data, long seed) { return DataSources.open(data, seed).train(); }
}
