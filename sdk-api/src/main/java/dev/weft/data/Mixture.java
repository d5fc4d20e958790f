package dev.weft.data;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Several sources mixed by weight. Weights become whole counts per block of {@link #BLOCK}
 * samples (at least one each); inside a block the sources are interleaved as evenly as smooth
 * weighted round-robin does it. Sample i is then sample b·c + o of its source (block b, the source's
 * count c, its o-th turn in the block): a pure function of i, so each source is read in its own
 * order, none skipped, whatever the layout.
 */
public final class Mixture implements TokenSource {
  static final int BLOCK = 1000;

  private final List<TokenSource> sources;
  private final int[] counts;
  private final int[] turnSource;
  private final int[] turnOrdinal;

  public Mixture(List<TokenSource> sources, List<Double> weights) {
    if (sources.isEmpty() || sources.size() != weights.size()) throw new IllegalArgumentException("one weight per source");
    this.sources = List.copyOf(sources);
    this.counts = counts(weights);
    int block = java.util.Arrays.stream(counts).sum();
    this.turnSource = new int[block];
    this.turnOrdinal = new int[block];
    int[] credit = new int[counts.length], used = new int[counts.length];
    for (int t = 0; t < block; t++) {
      int best = 0;
      for (int s = 0; s < counts.length; s++) {
        credit[s] += counts[s];
        if (credit[s] > credit[best]) best = s;
      }
      credit[best] -= block;
      turnSource[t] = best;
      turnOrdinal[t] = used[best]++;
    }
  }

  /** Per-block counts proportional to {@code weights}, each at least 1. */
  static int[] counts(List<Double> weights) {
    double sum = weights.stream().mapToDouble(Double::doubleValue).sum();
    return weights.stream().mapToInt(w -> (int) Math.max(1, Math.round(BLOCK * w / sum))).toArray();
  }

  int block() { return turnSource.length; }

  /** Which source sample {@code index} comes from, and its index there. */
  long[] locate(long index) {
    int t = (int) (index % block());
    int s = turnSource[t];
    return new long[] {s, index / block() * counts[s] + turnOrdinal[t]};
  }

  @Override
  public void sample(long index, int[] out) {
    long[] at = locate(index);
    sources.get((int) at[0]).sample(at[1], out);
  }

  @Override
  public void sample(long index, int[] out, boolean[] targets) {
    long[] at = locate(index);
    sources.get((int) at[0]).sample(at[1], out, targets);
  }

  @Override
  public boolean packed() { return sources.stream().anyMatch(TokenSource::packed); }

  @Override
  public void sample(long index, int[] out, boolean[] targets, int[] documents) {
    long[] at = locate(index);
    sources.get((int) at[0]).sample(at[1], out, targets, documents);
  }

  @Override
  public long vocabSize() { return sources.stream().mapToLong(TokenSource::vocabSize).max().orElseThrow(); }

  @Override
  public String idOutside(long vocab) {
    return sources.stream().map(s -> s.idOutside(vocab)).filter(java.util.Objects::nonNull).findFirst().orElse(null);
  }

  @Override
  public long distinctSamples() {
    long n = 0;
    for (TokenSource s : sources) {
      long d = s.distinctSamples();
      if (d == Long.MAX_VALUE) return d;
      n += d;
    }
    return n;
  }

  @Override
  public String describe() {
    int block = block();
    return "mixture of " + java.util.stream.IntStream.range(0, sources.size())
        .mapToObj(i -> String.format(java.util.Locale.ROOT, "%.1f%% %s", 100.0 * counts[i] / block, sources.get(i).describe()))
        .collect(Collectors.joining(", "));
  }
}
