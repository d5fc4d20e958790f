package dev.weft.spec;

import java.util.List;

/**
 * Training data. {@code source} names one source: {@code arithmetic} (a learnable synthetic corpus
 * that ships with Weft), a directory of token shards ({@code weft data prepare}), a NumPy {@code .npy}
 * file of token ids, a UTF-8 text file read as byte tokens ({@code file:PATH} or a plain path), or
 * {@code NAME:LOCATION} for a {@code dev.weft.data.DataSourceFactory}. {@code sources}, when not
 * empty, mixes several by weight instead. {@code validation} is the fraction of each source held
 * out for evaluation (0: none).
 */
public record DataSpec(String source, int seqLen, List<Weighted> sources, double validation) {
  public DataSpec {
    sources = sources == null ? List.of() : List.copyOf(sources);
  }

  /** One source of a mixture and its share of the samples. */
  public record Weighted(String source, double weight) {}

  /** The sources this spec reads: {@code sources}, or {@code source} alone with weight 1. */
  public List<Weighted> mix() { return sources.isEmpty() ? List.of(new Weighted(source, 1)) : sources; }
}
