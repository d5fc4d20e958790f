package dev.weft.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** {@code weft bench grpo --quick} yields its two well-formed rows (no timing asserted: the machine is shared). */
class GrpoBenchTest {
  @Test
  void quickRunGivesTokensPerSecondPairsAndARolloutShare() {
    GrpoBench.Result r = GrpoBench.measure(GrpoBench.Config.of(true));
    List<BenchRow> rows = GrpoBench.rows(r);
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).pairRatios()).hasSize(1);
    assertThat(rows.get(0).pairRatios()[0]).isPositive().isFinite();
    assertThat(rows.get(0).measured()).isPositive().isFinite();
    assertThat(r.rolloutShare()).isGreaterThan(0).isLessThanOrEqualTo(1);
    System.out.printf("grpo bench (quick): batched %.0f tok/s, alone %.0f tok/s, ratio %.2f, rollout share %.2f%n",
        rows.get(0).measured(), Stats.median(r.alone()), rows.get(0).pairRatios()[0], r.rolloutShare());
  }

  /** The measurement at the reported sizes (minutes of CPU; WEFT_GRPO_BENCH=1), its rows printed. */
  @Test
  @EnabledIfEnvironmentVariable(named = "WEFT_GRPO_BENCH", matches = "1")
  void fullSizes() {
    GrpoBench.Result r = GrpoBench.measure(GrpoBench.Config.of(false));
    for (BenchRow row : GrpoBench.rows(r)) System.out.println("grpo bench (full): " + row);
    System.out.printf("grpo bench (full): batched %s tok/s, alone %s tok/s, rollout share %.2f%n",
        java.util.Arrays.toString(r.batched()), java.util.Arrays.toString(r.alone()), r.rolloutShare());
  }
}
