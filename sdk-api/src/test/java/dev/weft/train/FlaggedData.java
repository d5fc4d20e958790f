package dev.weft.train;

import dev.weft.data.DataSourceFactory;
import dev.weft.data.Splits;
import dev.weft.data.TokenSource;
import dev.weft.spec.DataSpec;
import java.util.Random;

/**
 * A test data source with target flags: {@code data.source: dev.weft.train.FlaggedData:FROM-TO}. Sample i holds
 * seeded random ids below {@link #VOCAB}; a share of its tokens that grows with i % 8 are targets (none where
 * i % 8 == 2, all where i % 8 == 5), and no token of samples FROM … TO−1 is one. Validation samples are others alike.
 */
public final class FlaggedData implements DataSourceFactory {
  static final int VOCAB = 64;

  @Override public String name() { return "flagged"; }

  @Override
  public Splits open(String location, DataSpec data, long seed) {
    String[] range = location.split("-");
    long from = Long.parseLong(range[0]), to = Long.parseLong(range[1]);
    return new Splits(source(from, to, seed, 0), data.validation() > 0 ? source(from, to, seed, 1_000_000) : null);
  }

  private static TokenSource source(long from, long to, long seed, long offset) {
    return new TokenSource() {
      @Override public void sample(long index, int[] out) { sample(index, out, new boolean[out.length]); }

      @Override
      public void sample(long index, int[] out, boolean[] targets) {
        Random r = new Random((index + offset) * 31 + seed);
        int k = (int) (index % 8);
        double kept = index >= from && index < to ? 0 : k == 2 ? 0 : k == 5 ? 1 : k / 10.0;
        for (int t = 0; t < out.length; t++) {
          out[t] = r.nextInt(VOCAB);
          targets[t] = r.nextDouble() < kept;
        }
      }

      @Override public String describe() { return "flagged test data"; }
      @Override public long vocabSize() { return VOCAB; }
    };
  }
}
