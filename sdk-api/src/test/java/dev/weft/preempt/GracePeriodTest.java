package dev.weft.preempt;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GracePeriodTest {
  @Test
  void thePodsValueWinsOverTheSpecsAndTheDefaultIs120() {
    assertThat(GracePeriod.of(Map.of(GracePeriod.ENV, "60"), 300).seconds()).isEqualTo(60);
    assertThat(GracePeriod.of(Map.of(GracePeriod.ENV, "x"), 300).seconds()).isEqualTo(300);
    assertThat(GracePeriod.of(Map.of(), 0).seconds()).isEqualTo(120);
  }

  @Test
  void workersGiveUpBeforeTheirSupervisorWhichGivesUpBeforeSigkill() {
    for (int s : new int[] {10, 30, 120, 3600}) {
      GracePeriod g = new GracePeriod(s);
      assertThat(g.saveDeadline()).isPositive().isLessThan(g.superviseDeadline());
      assertThat(g.superviseDeadline()).isLessThan(Duration.ofSeconds(s));
    }
    assertThat(new GracePeriod(120).saveDeadline()).isEqualTo(Duration.ofSeconds(108));
  }
}
