package dev.weft.parallel.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The measured bubble of 1F1B on 2 stages and 8 micro-batches, from the executor's timeline, is
 * within 1.5× of (p−1)/(m+p−1) plus a little for transfers. Only asserted when the load average is
 * at most the number of cores: other processes stretching a compute on one stage shows up as idle
 * on the other; {@link PipelineBubbleBench} reports the ratios.
 */
class PipelineBubbleTest {
  private static final Logger log = LoggerFactory.getLogger(PipelineBubbleTest.class);

  @Test
  void oneFOneBOnTwoStagesIdlesAboutAsMuchAsTheoryPredicts() {
    PipelineBubbleBench.Measurement m = PipelineBubbleBench.measure("1f1b", 2, 8, 1, false, 8, 512, 64, 5);
    log.info("{}", m);
    assertThat(m.theory()).isEqualTo(1.0 / 9);
    assertThat(m.meanBubble()).isBetween(0.0, 1.0);
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    int cores = Runtime.getRuntime().availableProcessors();
    assumeTrue(load <= cores, "machine too busy to measure a bubble: load average " + load + " on " + cores + " cores");
    assertThat(m.meanBubble()).isLessThanOrEqualTo(1.5 * m.theory() + 0.03);
  }
}
