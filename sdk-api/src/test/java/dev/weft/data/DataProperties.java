package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class DataProperties {
  @Property
  void everySampleOfAStepIsReadExactlyOnceWhateverTheLayout(@ForAll @IntRange(min = 1, max = 8) int dp,
                                                            @ForAll @IntRange(min = 1, max = 4) int micro,
                                                            @ForAll @IntRange(min = 1, max = 4) int perMicro,
                                                            @ForAll @IntRange(min = 0, max = 1000) int step) {
    int batch = dp * micro * perMicro;
    List<Long> seen = new ArrayList<>();
    for (int r = 0; r < dp; r++) {
      DistributedSampler s = new DistributedSampler(batch, dp, r, micro);
      for (int m = 0; m < micro; m++) for (int j = 0; j < s.microBatchSize(); j++) seen.add(s.firstSample(step, m) + j);
    }
    seen.sort(null);
    List<Long> expected = new ArrayList<>();
    for (long i = 0; i < batch; i++) expected.add((long) step * batch + i);
    assertThat(seen).isEqualTo(expected);
  }

  @Property
  void samplesAreAFunctionOfTheirIndex(@ForAll @IntRange(min = 0, max = 1_000_000) long index, @ForAll @IntRange(min = 2, max = 300) int len) {
    int[] a = new int[len], b = new int[len];
    new ArithmeticCorpus(7).sample(index, a);
    new ArithmeticCorpus(7).sample(index, b);
    assertThat(a).isEqualTo(b);
    assertThat(text(a)).matches("[0-9+=;]*");
  }

  @Property(tries = 50)
  void arithmeticLinesAreCorrectSums(@ForAll @IntRange(min = 0, max = 100_000) long index) {
    int[] a = new int[400];
    new ArithmeticCorpus(3).sample(index, a);
    String[] lines = text(a).split(";");
    for (String line : Arrays.copyOf(lines, lines.length - 1)) {
      String[] eq = line.split("=");
      String[] ab = eq[0].split("\\+");
      assertThat(Integer.parseInt(ab[0]) + Integer.parseInt(ab[1])).isEqualTo(Integer.parseInt(eq[1]));
    }
  }

  private static String text(int[] ids) {
    StringBuilder sb = new StringBuilder();
    for (int id : ids) sb.append((char) id);
    return sb.toString();
  }
}
