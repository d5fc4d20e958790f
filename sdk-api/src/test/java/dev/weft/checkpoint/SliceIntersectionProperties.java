package dev.weft.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Example;

/**
 * Any partitioning saved, any partitioning wanted: every wanted element is filled exactly once, from
 * saved data, with the value of the global element it stands for. Checked against a brute-force
 * enumeration of each slice's global indices, no tensors involved.
 */
class SliceIntersectionProperties {
  record Case(long[] global, List<TensorSlice> saved, List<TensorSlice> wanted) {
    @Override public String toString() { return Arrays.toString(global) + " saved " + saved + " wanted " + wanted; }
  }

  @Property(tries = 400)
  void everyWantedElementComesFromTheRightSavedElement(@ForAll("cases") Case c) {
    List<long[]> savedData = new ArrayList<>();
    for (TensorSlice s : c.saved()) savedData.add(globalIndices(s)); // a saved piece's values are the global indices
    for (TensorSlice w : c.wanted()) {
      long[] got = new long[(int) w.flatLength()];
      int[] writes = new int[got.length];
      for (int i = 0; i < c.saved().size(); i++) {
        for (CopyRun r : SliceIntersection.plan(c.saved().get(i), w)) {
          for (long k = 0; k < r.length(); k++) {
            got[(int) (r.dst() + k)] = savedData.get(i)[(int) (r.src() + k)];
            writes[(int) (r.dst() + k)]++;
          }
        }
      }
      assertThat(writes).as("each element of %s written once", w).containsOnly(got.length == 0 ? new int[0] : new int[] {1});
      assertThat(got).as("values of %s", w).containsExactly(globalIndices(w));
    }
  }

  @Property(tries = 200)
  void coveredCountsDistinctElements(@ForAll("cases") Case c) {
    for (TensorSlice w : c.wanted()) {
      List<CopyRun> all = new ArrayList<>();
      for (TensorSlice s : c.saved()) all.addAll(SliceIntersection.plan(s, w));
      all.addAll(new ArrayList<>(all)); // duplicates (replicas written twice) count once
      assertThat(LoadPlan.covered(all)).isEqualTo(w.flatLength());
    }
  }

  @Example
  void wholeToWholeIsOneRun() {
    TensorSlice s = TensorSlice.whole(64, 32);
    assertThat(SliceIntersection.plan(s, s)).containsExactly(new CopyRun(0, 0, 64 * 32));
  }

  @Example
  void scalarsWork() {
    TensorSlice s = TensorSlice.whole();
    assertThat(SliceIntersection.plan(s, s)).containsExactly(new CopyRun(0, 0, 1));
  }

  /** The global row-major indices a slice holds, in its order, by brute force. */
  static long[] globalIndices(TensorSlice s) {
    long[] g = s.globalShape(), off = s.offset(), shape = s.shape();
    long n = s.boxNumel();
    long[] out = new long[(int) s.flatLength()];
    long[] idx = new long[shape.length];
    for (long f = 0; f < n; f++) {
      if (f >= s.flatStart() && f < s.flatStart() + s.flatLength()) {
        long gi = 0;
        for (int d = 0; d < g.length; d++) gi = gi * g[d] + off[d] + idx[d];
        out[(int) (f - s.flatStart())] = gi;
      }
      for (int d = shape.length - 1; d >= 0; d--) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<long[]> shapes = Arbitraries.longs().between(1, 6).array(long[].class).ofMinSize(0).ofMaxSize(3);
    return Combinators.combine(shapes, Arbitraries.longs(), Arbitraries.longs())
        .as((g, s1, s2) -> new Case(g, partition(g, new Random(s1)), partition(g, new Random(s2))));
  }

  /** A random exact partition: boxes cut along one dimension at random points, each box cut into random flat ranges. */
  static List<TensorSlice> partition(long[] global, Random rnd) {
    List<TensorSlice> boxes = new ArrayList<>();
    if (global.length == 0 || rnd.nextInt(4) == 0) {
      boxes.add(TensorSlice.whole(global));
    } else {
      int dim = rnd.nextInt(global.length);
      long at = 0;
      while (at < global[dim]) {
        long len = 1 + (long) rnd.nextInt((int) (global[dim] - at));
        long[] off = new long[global.length], shape = global.clone();
        off[dim] = at;
        shape[dim] = len;
        boxes.add(TensorSlice.box(global, off, shape));
        at += len;
      }
    }
    List<TensorSlice> out = new ArrayList<>();
    for (TensorSlice b : boxes) {
      int parts = 1 + rnd.nextInt(3);
      if (rnd.nextBoolean()) {
        for (int i = 0; i < parts; i++) out.add(b.flatPart(i, parts)); // ZeRO-style, possibly empty tail parts
      } else {
        long n = b.boxNumel(), at = 0;
        while (at < n) {
          long len = 1 + (long) rnd.nextInt((int) (n - at));
          out.add(b.flatRange(at, len));
          at += len;
        }
      }
    }
    return out;
  }
}
