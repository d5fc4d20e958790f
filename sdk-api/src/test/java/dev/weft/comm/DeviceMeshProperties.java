package dev.weft.comm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.comm.DeviceMesh.Dim;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class DeviceMeshProperties {
  @Property
  void rankAndCoordinatesAreABijection(@ForAll @IntRange(min = 1, max = 6) int dp, @ForAll @IntRange(min = 1, max = 6) int pp,
                                       @ForAll @IntRange(min = 1, max = 4) int cp, @ForAll @IntRange(min = 1, max = 6) int tp) {
    DeviceMesh m = new DeviceMesh(dp, pp, cp, tp);
    Set<DeviceMesh.Coord> seen = new HashSet<>();
    for (int r = 0; r < m.worldSize(); r++) {
      DeviceMesh.Coord c = m.coord(r);
      assertThat(m.rank(c)).isEqualTo(r);
      assertThat(seen.add(c)).isTrue();
    }
  }

  @Property
  void groupsPartitionTheWorldAlongEachDimension(@ForAll @IntRange(min = 1, max = 5) int dp, @ForAll @IntRange(min = 1, max = 5) int pp,
                                                 @ForAll @IntRange(min = 1, max = 3) int cp, @ForAll @IntRange(min = 1, max = 5) int tp) {
    DeviceMesh m = new DeviceMesh(dp, pp, cp, tp);
    for (Dim d : Dim.values()) {
      for (int r = 0; r < m.worldSize(); r++) {
        List<Integer> g = m.group(d, r);
        assertThat(g).hasSize(m.size(d)).contains(r);
        assertThat(g.get(m.index(d, r))).isEqualTo(r);
        for (int peer : g) {
          assertThat(m.group(d, peer)).isEqualTo(g);
          assertThat(m.groupName(d, peer)).isEqualTo(m.groupName(d, r));
        }
      }
    }
  }

  @Property
  void tensorParallelGroupsAreNeighbouringRanks(@ForAll @IntRange(min = 1, max = 5) int dp, @ForAll @IntRange(min = 1, max = 5) int pp,
                                                @ForAll @IntRange(min = 1, max = 8) int tp) {
    DeviceMesh m = new DeviceMesh(dp, pp, tp);
    for (int r = 0; r < m.worldSize(); r++) {
      List<Integer> g = m.group(Dim.TP, r);
      for (int i = 1; i < g.size(); i++) assertThat(g.get(i)).isEqualTo(g.get(0) + i);
    }
  }

  @Property
  void contextParallelRanksFollowTheirTensorParallelBlock(@ForAll @IntRange(min = 1, max = 4) int dp, @ForAll @IntRange(min = 1, max = 4) int cp,
                                                         @ForAll @IntRange(min = 1, max = 4) int tp) {
    DeviceMesh m = new DeviceMesh(dp, 2, cp, tp);
    for (int r = 0; r < m.worldSize(); r++) {
      List<Integer> g = m.group(Dim.CP, r);
      for (int i = 1; i < g.size(); i++) assertThat(g.get(i)).isEqualTo(g.get(0) + i * tp);
    }
    assertThat(new DeviceMesh(dp, 2, 1, tp)).isEqualTo(new DeviceMesh(dp, 2, tp));
  }
}
