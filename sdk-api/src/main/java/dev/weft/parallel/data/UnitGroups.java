package dev.weft.parallel.data;

import java.util.Arrays;

/**
 * Consecutive units (layers, numbered in forward order) merged into gather groups of at least a
 * target size: one all-gather per group instead of one per layer, so a LayerNorm or a bias does not
 * pay a collective's fixed cost alone. A group is one flat bucket. Pure arithmetic.
 *
 * @param groupOfUnit the group of each unit
 * @param lastUnit the highest unit of each group (forward leaves the group after it)
 */
public record UnitGroups(int[] groupOfUnit, int[] lastUnit) {
  /**
   * @param numels element count of each parameter, in registration order
   * @param units unit of each parameter, non-decreasing (units are numbered as layers are created)
   * @param targetElements close a group once it holds at least this many elements
   */
  public static UnitGroups plan(long[] numels, int[] units, long targetElements) {
    return plan(numels, units, targetElements, new boolean[numels.length]);
  }

  /** As above; a unit holding an {@code alone} parameter is a group of its own (a tied weight two stages lay out alike). */
  public static UnitGroups plan(long[] numels, int[] units, long targetElements, boolean[] alone) {
    if (numels.length != units.length || alone.length != units.length) throw new IllegalArgumentException("numels, units and alone differ in length");
    int unitCount = Arrays.stream(units).max().orElse(-1) + 1;
    long[] perUnit = new long[unitCount];
    boolean[] aloneUnit = new boolean[unitCount];
    for (int i = 0; i < units.length; i++) {
      perUnit[units[i]] += numels[i];
      aloneUnit[units[i]] |= alone[i];
    }
    int[] groupOf = new int[unitCount];
    int[] last = new int[unitCount];
    int group = 0;
    long used = 0;
    boolean open = false;
    for (int u = 0; u < unitCount; u++) {
      if (aloneUnit[u] && open) {
        group++;
        used = 0;
      }
      groupOf[u] = group;
      last[group] = u;
      used += perUnit[u];
      open = true;
      if ((used >= targetElements || aloneUnit[u]) && u < unitCount - 1) {
        group++;
        used = 0;
        open = false;
      }
    }
    return new UnitGroups(groupOf, Arrays.copyOf(last, unitCount == 0 ? 0 : group + 1));
  }

  public int count() { return lastUnit.length; }

  public int of(int unit) { return groupOfUnit[unit]; }

  /** The group of each parameter. */
  public int[] ofParams(int[] units) { return Arrays.stream(units).map(u -> groupOfUnit[u]).toArray(); }
}
