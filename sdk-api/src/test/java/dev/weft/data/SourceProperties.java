package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class SourceProperties {
  /** Tokens 0, 1, 2, ... in memory: a token's value is its position. */
  record Counting(long size) implements TokenArray {
    @Override
    public int get(long i) {
      if (i < 0 || i >= size) throw new IndexOutOfBoundsException();
      return (int) i;
    }
  }

  @Property
  void shuffleIsAPermutation(@ForAll @IntRange(min = 1, max = 3000) int n, @ForAll long key) {
    Shuffle s = new Shuffle(n, key);
    Set<Long> seen = new HashSet<>();
    for (long i = 0; i < n; i++) seen.add(s.at(i));
    assertThat(seen).hasSize(n);
    assertThat(seen.stream().allMatch(x -> x >= 0 && x < n)).isTrue();
  }

  @Property(tries = 100)
  void everyTrainingWindowIsReadOncePerEpochAndNeverAValidationWindow(
      @ForAll @IntRange(min = 2, max = 3000) int tokens, @ForAll @IntRange(min = 1, max = 40) int seqLen,
      @ForAll @DoubleRange(min = 0, max = 0.5) double validation, @ForAll long seed) {
    long windows = (tokens - 1) / seqLen;
    long held = validation <= 0 ? 0 : Math.max(1, (long) Math.ceil(windows * validation));
    if (windows - held < 1) return; // too small: split refuses (checked elsewhere)
    Splits s = Windows.split(new Counting(tokens), "counting", 0, seqLen, validation, seed);
    long train = s.train().distinctSamples();
    assertThat(train).isEqualTo(windows - held);
    int[] out = new int[seqLen + 1];
    for (int epoch = 0; epoch < 2; epoch++) {
      Set<Integer> starts = new HashSet<>();
      for (long i = 0; i < train; i++) {
        s.train().sample(epoch * train + i, out);
        for (int k = 0; k <= seqLen; k++) assertThat(out[k]).isEqualTo(out[0] + k); // contiguous tokens
        assertThat(out[0] % seqLen).isZero();
        assertThat(out[0] / seqLen).isLessThan((int) train);
        starts.add(out[0]);
      }
      assertThat(starts).hasSize((int) train);
    }
    if (held > 0) {
      assertThat(s.validation().distinctSamples()).isEqualTo(held);
      for (long i = 0; i < held; i++) {
        s.validation().sample(i, out);
        assertThat(out[0]).isEqualTo((int) ((train + i) * seqLen));
      }
    } else {
      assertThat(s.validation()).isNull();
    }
  }

  @Property(tries = 100)
  void aMixtureReadsEachSourceInItsOwnOrderInProportion(@ForAll @Size(min = 1, max = 4) List<@IntRange(min = 1, max = 20) Integer> w,
                                                        @ForAll @IntRange(min = 0, max = 50) int firstBlock) {
    List<Double> weights = w.stream().map(Integer::doubleValue).toList();
    List<TokenSource> sources = IntStream.range(0, w.size()).mapToObj(SourceProperties::tagged).toList();
    Mixture m = new Mixture(sources, weights);
    int[] counts = Mixture.counts(weights);
    List<List<Long>> seen = new ArrayList<>();
    for (int s = 0; s < w.size(); s++) seen.add(new ArrayList<>());
    long from = (long) firstBlock * m.block();
    int[] out = new int[2];
    for (long i = from; i < from + 2L * m.block(); i++) {
      m.sample(i, out);
      seen.get(out[0]).add((long) out[1]);
    }
    for (int s = 0; s < w.size(); s++) {
      List<Long> expect = new ArrayList<>();
      for (long j = 0; j < 2L * counts[s]; j++) expect.add((long) firstBlock * counts[s] + j);
      assertThat(seen.get(s)).isEqualTo(expect);
      assertThat(Math.abs((double) counts[s] / m.block() - weights.get(s) / weights.stream().mapToDouble(x -> x).sum()))
          .isLessThan(0.002);
    }
  }

  @Property(tries = 100)
  void concatenatedArraysReadAsOne(@ForAll @Size(max = 6) List<@IntRange(min = 0, max = 30) Integer> sizes,
                                   @ForAll @IntRange(min = 0, max = 200) int from, @ForAll @IntRange(min = 0, max = 60) int len) {
    List<TokenArray> parts = new ArrayList<>();
    List<Integer> flat = new ArrayList<>();
    for (int size : sizes) {
      int base = flat.size() * 1000;
      int[] ids = IntStream.range(0, size).map(k -> base + k).toArray();
      for (int id : ids) flat.add(id);
      parts.add(new TokenArray() {
        @Override public long size() { return ids.length; }
        @Override public int get(long i) { return ids[(int) i]; }
      });
    }
    ConcatTokens c = new ConcatTokens(parts);
    assertThat(c.size()).isEqualTo(flat.size());
    if (from + len > flat.size()) return;
    int[] out = new int[len];
    c.read(from, out);
    for (int k = 0; k < len; k++) {
      assertThat(out[k]).isEqualTo(flat.get(from + k));
      assertThat(c.get(from + k)).isEqualTo(flat.get(from + k));
    }
  }

  /** Sample j of source s is [s, j]. */
  private static TokenSource tagged(int s) {
    return new TokenSource() {
      @Override public void sample(long index, int[] out) { out[0] = s; out[1] = (int) index; }
      @Override public String describe() { return "source " + s; }
      @Override public long vocabSize() { return 0; }
    };
  }
}
