package dev.weft.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * Packs documents into windows of {@code capacity} tokens by best-fit decreasing: the longest document
 * first, each into the window whose free space fits it most tightly, a new window only when none does.
 * A document that fits a window is never split; a longer one is cut into window-sized pieces first (its
 * full pieces fill windows of their own, its remainder is packed like a document). Pure and deterministic:
 * the same lengths give the same windows (ties by document index), so a sample is a function of its index.
 */
public final class BestFitPacking {
  private BestFitPacking() {}

  /** Tokens {@code [offset, offset + length)} of document {@code document}. */
  public record Piece(int document, long offset, int length) {}

  /** One window's pieces, in the order they are laid out; {@link #used} ≤ capacity. */
  public record Window(List<Piece> pieces) {
    public int used() { return pieces.stream().mapToInt(Piece::length).sum(); }
  }

  public static List<Window> pack(long[] lengths, int capacity) {
    if (capacity < 1) throw new IllegalArgumentException("capacity " + capacity + " < 1");
    List<Window> out = new ArrayList<>();
    List<Piece> rest = new ArrayList<>();
    for (int d = 0; d < lengths.length; d++) {
      if (lengths[d] < 0) throw new IllegalArgumentException("document " + d + " has length " + lengths[d]);
      long full = lengths[d] / capacity;
      for (long k = 0; k < full; k++) out.add(new Window(List.of(new Piece(d, k * capacity, capacity))));
      int tail = (int) (lengths[d] - full * capacity);
      if (tail > 0) rest.add(new Piece(d, full * capacity, tail));
    }
    rest.sort(Comparator.comparingInt(Piece::length).reversed().thenComparingInt(Piece::document));
    // free space → windows with exactly that much free space (first opened first)
    TreeMap<Integer, ArrayList<List<Piece>>> byFree = new TreeMap<>();
    List<List<Piece>> opened = new ArrayList<>();
    for (Piece p : rest) {
      var fit = byFree.ceilingEntry(p.length());
      List<Piece> w;
      int free;
      if (fit == null) {
        w = new ArrayList<>();
        opened.add(w);
        free = capacity;
      } else {
        free = fit.getKey();
        w = fit.getValue().remove(0);
        if (fit.getValue().isEmpty()) byFree.remove(free);
      }
      w.add(p);
      int left = free - p.length();
      if (left > 0) byFree.computeIfAbsent(left, k -> new ArrayList<>()).add(w);
    }
    for (List<Piece> w : opened) out.add(new Window(List.copyOf(w)));
    return out;
  }

  /** One piece per window, in document order: each document alone (padded), cut into window-sized pieces where longer. */
  public static List<Window> alone(long[] lengths, int capacity) {
    if (capacity < 1) throw new IllegalArgumentException("capacity " + capacity + " < 1");
    List<Window> out = new ArrayList<>();
    for (int d = 0; d < lengths.length; d++) {
      for (long at = 0; at < lengths[d]; at += capacity) {
        out.add(new Window(List.of(new Piece(d, at, (int) Math.min(capacity, lengths[d] - at)))));
      }
    }
    return out;
  }

  /** Tokens that padding to one document per window would need, over the tokens packing needs: the packing gain. */
  public static double gainOverPadding(long[] lengths, int capacity) {
    long padded = Arrays.stream(lengths).map(l -> Math.max(1, (l + capacity - 1) / capacity)).sum();
    return (double) padded / Math.max(1, pack(lengths, capacity).size());
  }
}
