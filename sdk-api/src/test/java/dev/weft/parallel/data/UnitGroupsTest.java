package dev.weft.parallel.data;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UnitGroupsTest {
  // a GPT-like block: LayerNorm (2 params), QKV (2), projection (2), LayerNorm (2), MLP up (2), MLP down (2)
  private static final long[] NUMELS = {64, 64, 64 * 192, 192, 64 * 64, 64, 64, 64, 64 * 256, 256, 256 * 64, 64};
  private static final int[] UNITS = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};

  @Test
  void smallLayersJoinTheNextUntilTheGroupReachesTheTarget() {
    UnitGroups g = UnitGroups.plan(NUMELS, UNITS, 4096);
    // LayerNorm + QKV (12,608) | projection (4,160) | LayerNorm + MLP up (16,768) | MLP down (16,448)
    assertThat(g.groupOfUnit()).containsExactly(0, 0, 1, 2, 2, 3);
    assertThat(g.lastUnit()).containsExactly(1, 2, 4, 5);
    assertThat(g.ofParams(UNITS)).containsExactly(0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3);
  }

  @Test
  void aTargetAboveTheModelMakesOneGroupAndATinyOneKeepsEveryLayer() {
    assertThat(UnitGroups.plan(NUMELS, UNITS, Long.MAX_VALUE).lastUnit()).containsExactly(5);
    assertThat(UnitGroups.plan(NUMELS, UNITS, 1).groupOfUnit()).containsExactly(0, 1, 2, 3, 4, 5);
  }

  @Test
  void aGroupIsOneBucketOfTheFlatLayout() {
    UnitGroups g = UnitGroups.plan(NUMELS, UNITS, 4096);
    FlatLayout layout = FlatLayout.plan(NUMELS, g.ofParams(UNITS), Long.MAX_VALUE, 2);
    assertThat(layout.buckets()).hasSize(g.count());
    assertThat(layout.buckets().get(0).used()).isEqualTo(256 * 64 + 64); // backward order: MLP down first
    assertThat(layout.totalUsed()).isEqualTo(java.util.Arrays.stream(NUMELS).sum());
  }

  @Test
  void aTiedWeightIsAGroupAndABucketOfItsOwnWhateverItsNeighbours() {
    boolean[] alone = new boolean[NUMELS.length];
    alone[4] = true; // the projection's weight, as if two stages held it
    UnitGroups g = UnitGroups.plan(NUMELS, UNITS, Long.MAX_VALUE, alone);
    assertThat(g.groupOfUnit()).containsExactly(0, 0, 1, 2, 2, 2);
    FlatLayout byUnit = FlatLayout.plan(NUMELS, new int[NUMELS.length], 1 << 20, 4, alone);
    FlatLayout.Bucket own = byUnit.buckets().stream().filter(b -> b.slots().stream().anyMatch(s -> s.param() == 4)).findFirst().orElseThrow();
    assertThat(own.slots()).hasSize(1);
    assertThat(own.padded()).isEqualTo(64 * 64);
    assertThat(byUnit.buckets()).hasSize(3);
  }
}
