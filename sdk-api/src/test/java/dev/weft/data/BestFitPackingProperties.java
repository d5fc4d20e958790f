package dev.weft.data;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.data.BestFitPacking.Piece;
import dev.weft.data.BestFitPacking.Window;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

class BestFitPackingProperties {
  @Property
  void everyTokenOfEveryDocumentLandsOnceAndNoWindowOverflows(
      @ForAll @Size(max = 60) List<@LongRange(min = 0, max = 300) Long> lens, @ForAll @IntRange(min = 1, max = 128) int capacity) {
    long[] lengths = lens.stream().mapToLong(Long::longValue).toArray();
    List<Window> windows = BestFitPacking.pack(lengths, capacity);
    List<List<Piece>> byDoc = new ArrayList<>();
    for (int d = 0; d < lengths.length; d++) byDoc.add(new ArrayList<>());
    for (Window w : windows) {
      assertThat(w.used()).isBetween(1, capacity);
      for (Piece p : w.pieces()) byDoc.get(p.document()).add(p);
    }
    for (int d = 0; d < lengths.length; d++) {
      List<Piece> ps = byDoc.get(d);
      ps.sort(Comparator.comparingLong(Piece::offset));
      long next = 0;
      for (Piece p : ps) {
        assertThat(p.offset()).isEqualTo(next);
        next += p.length();
      }
      assertThat(next).as("document %d", d).isEqualTo(lengths[d]);
      if (lengths[d] <= capacity && lengths[d] > 0) assertThat(ps).as("a document that fits is never split").hasSize(1);
    }
  }

  @Property
  void packingNeverUsesMoreWindowsThanTwiceTheLowerBound(
      @ForAll @Size(min = 1, max = 80) List<@LongRange(min = 1, max = 64) Long> lens, @ForAll @IntRange(min = 64, max = 96) int capacity) {
    long[] lengths = lens.stream().mapToLong(Long::longValue).toArray();
    long total = lens.stream().mapToLong(Long::longValue).sum();
    long lower = (total + capacity - 1) / capacity;
    // best-fit decreasing is within 11/9·OPT + 1; twice the volume bound is a loose, always-true check
    assertThat((long) BestFitPacking.pack(lengths, capacity).size()).isLessThanOrEqualTo(Math.max(1, 2 * lower));
  }

  @Property
  void theSameLengthsGiveTheSameWindows(@ForAll @Size(max = 40) List<@LongRange(min = 0, max = 200) Long> lens) {
    long[] lengths = lens.stream().mapToLong(Long::longValue).toArray();
    assertThat(BestFitPacking.pack(lengths, 50)).isEqualTo(BestFitPacking.pack(lengths.clone(), 50));
  }
}
