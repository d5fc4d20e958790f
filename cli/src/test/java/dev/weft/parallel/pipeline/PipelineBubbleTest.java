package dev.weft.parallel.pipeline;

import dev.weft.bench.PipelineBubbleBench;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bubble measurement itself: a real 1F1B run on 2 stages and 8 micro-batches yields a timeline
 * whose idle fractions are well-formed and the theory it is compared with is (p−1)/(m+p−1). How
 * close the measurement comes to theory is a benchmark matter ({@code weft bench pipeline}), not a
 * timed assertion here: any other process on the machine shows up as idle time.
 */
class PipelineBubbleTest {
  private static final Logger log = LoggerFactory.getLogger(PipelineBubbleTest.class);

  @Test
  void oneFOneBOnTwoStagesYieldsAWellFormedBubbleMeasurement() {
    PipelineBubbleBench.Measurement m = PipelineBubbleBench.measure("1f1b", 2, 8, 1, false, 8, 512, 64, 5);
    log.info("{}", m);
    assertThat(m.theory()).isEqualTo(1.0 / 9);
    assertThat(m.meanBubble()).isBetween(0.0, 1.0);
  }
}
