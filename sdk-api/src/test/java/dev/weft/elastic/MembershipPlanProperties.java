package dev.weft.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.spec.SpecException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class MembershipPlanProperties {
  @Property
  void aPlanKeepsTheGlobalBatchTheMicroBatchSizeAndTheModelRanks(@ForAll @IntRange(min = 1, max = 8) int nodes,
      @ForAll @IntRange(min = 1, max = 4) int procs, @ForAll @IntRange(min = 1, max = 4) int tp,
      @ForAll @IntRange(min = 1, max = 4) int pp, @ForAll @IntRange(min = 1, max = 256) int batch,
      @ForAll @IntRange(min = 1, max = 8) int mbs) {
    var shape = new MembershipPlan.Shape(procs, tp, pp, batch, mbs);
    MembershipPlan p = MembershipPlan.forNodes(nodes, shape);
    boolean fits = (nodes * procs) % (tp * pp) == 0 && batch % ((nodes * procs) / (tp * pp) * mbs) == 0;
    assertThat(p != null).isEqualTo(fits);
    if (p == null) return;
    assertThat(p.dp() * tp * pp).isEqualTo(nodes * procs).isEqualTo(p.worldSize());
    assertThat(p.dp() * p.microBatches() * mbs).isEqualTo(batch);
  }

  @Property
  void aRangeIsRefusedExactlyWhenSomeCountCannotKeepTheBatchAndTheRefusalNamesTheSizesThatCan(
      @ForAll @IntRange(min = 1, max = 4) int min, @ForAll @IntRange(min = 0, max = 4) int extra,
      @ForAll @IntRange(min = 1, max = 2) int procs, @ForAll @IntRange(min = 1, max = 64) int batch) {
    int max = min + extra;
    var shape = new MembershipPlan.Shape(procs, 1, 1, batch, 1);
    boolean allFit = MembershipPlan.workableNodeCounts(min, max, shape).size() == max - min + 1;
    if (allFit) {
      MembershipPlan.requireAllWorkable(min, max, shape);
      return;
    }
    assertThatThrownBy(() -> MembershipPlan.requireAllWorkable(min, max, shape)).isInstanceOf(SpecException.class)
        .hasMessageContaining("train.globalBatch").hasMessageContaining("world sizes that keep it");
  }

  @Property
  void theLargestWorkableCountNeverExceedsWhatIsAvailable(@ForAll @IntRange(min = 0, max = 9) int available,
      @ForAll @IntRange(min = 1, max = 3) int min, @ForAll @IntRange(min = 3, max = 6) int max,
      @ForAll @IntRange(min = 1, max = 48) int batch) {
    var shape = new MembershipPlan.Shape(1, 1, 1, batch, 1);
    int n = MembershipPlan.largestWorkable(available, min, max, shape);
    if (n == 0) return;
    assertThat(n).isBetween(min, Math.min(available, max));
    assertThat(MembershipPlan.forNodes(n, shape)).isNotNull();
  }

  @Property(tries = 1)
  void twoNodesToOneDoublesTheMicroBatches() {
    var shape = new MembershipPlan.Shape(1, 1, 1, 8, 4);
    assertThat(MembershipPlan.forNodes(2, shape)).isEqualTo(new MembershipPlan(2, 2, 2, 1));
    assertThat(MembershipPlan.forNodes(1, shape)).isEqualTo(new MembershipPlan(1, 1, 1, 2));
    assertThat(MembershipPlan.forNodes(3, shape)).isNull();
  }
}
