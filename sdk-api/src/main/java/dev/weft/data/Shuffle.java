package dev.weft.data;

/**
 * A seeded permutation of [0, n) computed one index at a time: a four-round Feistel network over
 * the next even power of two, walked until it lands below n. Nothing is stored, so it works for any
 * n and every index is visited exactly once per key.
 */
record Shuffle(long n, long key) {
  private static final int ROUNDS = 4;

  Shuffle {
    if (n < 1) throw new IllegalArgumentException("cannot shuffle " + n + " items");
  }

  long at(long i) {
    if (i < 0 || i >= n) throw new IndexOutOfBoundsException(i + " outside [0, " + n + ")");
    if (n == 1) return 0;
    int bits = 64 - Long.numberOfLeadingZeros(n - 1);
    int half = (bits + 1) / 2;
    long x = i;
    do x = permute(x, half); while (x >= n);
    return x;
  }

  private long permute(long x, int half) {
    long mask = (1L << half) - 1;
    long left = x >>> half, right = x & mask;
    for (int r = 0; r < ROUNDS; r++) {
      long next = left ^ (mix(right ^ key * (r + 1) ^ (long) r << 56) & mask);
      left = right;
      right = next;
    }
    return left << half | right;
  }

  /** Item {@code index} of an endless sequence of epochs over [0, n), each epoch its own seeded permutation. */
  static long epochOrder(long index, long n, long seed) {
    return new Shuffle(n, mix(seed ^ mix(index / n + 1))).at(index % n);
  }

  static long mix(long z) {
    z = (z ^ z >>> 30) * 0xBF58476D1CE4E5B9L;
    z = (z ^ z >>> 27) * 0x94D049BB133111EBL;
    return z ^ z >>> 31;
  }
}
