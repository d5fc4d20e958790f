package dev.weft.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MedianTest {
  @Test
  void middleValueOrMeanOfTheTwoAndNaNWhenEmpty() {
    assertThat(Median.of(new double[] {3, 1, 2})).isEqualTo(2);
    assertThat(Median.of(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
    assertThat(Median.of(new double[0])).isNaN();
    double[] in = {2, 1};
    Median.of(in);
    assertThat(in).containsExactly(2, 1); // the caller's samples stay in their order
  }
}
