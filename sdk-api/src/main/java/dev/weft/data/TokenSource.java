package dev.weft.data;

import dev.weft.spec.DataSpec;
import java.nio.file.Path;

/**
 * A corpus addressed by sample index: sample i is always the same {@code length} byte tokens, no
 * matter how many ranks read or in what order. That is what makes runs reproducible across layouts.
 */
public interface TokenSource {
  /** Fills {@code out} with sample {@code index} (length {@code out.length}). */
  void sample(long index, byte[] out);

  /** A one-line description for logs. */
  String describe();

  static TokenSource of(DataSpec data, long seed) {
    String src = data.source();
    if ("arithmetic".equals(src)) return new ArithmeticCorpus(seed);
    return TextFileCorpus.open(Path.of(src.startsWith("file:") ? src.substring(5) : src), seed);
  }
}
