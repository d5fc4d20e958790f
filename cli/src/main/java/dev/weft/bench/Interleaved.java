package dev.weft.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The two sides of a comparison measured in rounds, their order swapped every round, so the machine's drift and
 * other load fall on both sides alike and each round's pair can be compared on its own.
 */
final class Interleaved {
  private Interleaved() {}

  /** One run of a side ({@code first}: the first side) in a run directory of its own. */
  interface Side<T> {
    T run(boolean first, Path runDir) throws IOException;
  }

  /** Each side's runs, in round order. */
  record Pairs<T>(List<T> first, List<T> second) {}

  /** {@code rounds} rounds of one run per side; run directories {@code dir/r<round>-<name>}. */
  static <T> Pairs<T> rounds(int rounds, Path dir, String firstName, String secondName, Side<T> side) {
    List<T> first = new ArrayList<>(), second = new ArrayList<>();
    try {
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 2; k++) {
          boolean isFirst = (k + r) % 2 == 0;
          T out = side.run(isFirst, dir.resolve("r" + r + "-" + (isFirst ? firstName : secondName)));
          (isFirst ? first : second).add(out);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Pairs<>(first, second);
  }
}
