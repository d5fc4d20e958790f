package dev.weft.checkpoint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The pure heart of resharding: which elements of a saved piece land where in a wanted piece.
 * Both pieces are slices of the same global tensor; their common elements are walked row by row
 * (a row is contiguous in both boxes' flattenings), clipped to both flat ranges, and adjacent runs
 * are merged, so a whole-tensor to whole-tensor copy is a single run.
 */
public final class SliceIntersection {
  private SliceIntersection() {}

  public static List<CopyRun> plan(TensorSlice saved, TensorSlice wanted) {
    long[] global = saved.globalShape();
    if (!Arrays.equals(global, wanted.globalShape())) {
      throw new IllegalArgumentException("slices of different tensors: " + saved + " vs " + wanted);
    }
    List<CopyRun> runs = new ArrayList<>();
    if (saved.flatLength() == 0 || wanted.flatLength() == 0) return runs;
    Box a = Box.of(saved), b = Box.of(wanted);
    int n = a.offset.length;
    long[] lo = new long[n], hi = new long[n];
    for (int d = 0; d < n; d++) {
      lo[d] = Math.max(a.offset[d], b.offset[d]);
      hi[d] = Math.min(a.offset[d] + a.shape[d], b.offset[d] + b.shape[d]);
      if (lo[d] >= hi[d]) return runs;
    }
    long width = hi[n - 1] - lo[n - 1];
    long[] row = lo.clone(); // the odometer over dimensions 0..n-2; row[n-1] stays at lo[n-1]
    long pendSrc = -1, pendDst = -1, pendLen = 0;
    while (true) {
      long aBase = a.flatIndex(row), bBase = b.flatIndex(row);
      if (aBase >= a.end || bBase >= b.end) break; // rows only move forward in both flattenings
      long jlo = Math.max(0, Math.max(a.start - aBase, b.start - bBase));
      long jhi = Math.min(width, Math.min(a.end - aBase, b.end - bBase));
      if (jlo < jhi) {
        long src = aBase + jlo - a.start, dst = bBase + jlo - b.start, len = jhi - jlo;
        if (pendLen > 0 && pendSrc + pendLen == src && pendDst + pendLen == dst) {
          pendLen += len;
        } else {
          if (pendLen > 0) runs.add(new CopyRun(pendSrc, pendDst, pendLen));
          pendSrc = src;
          pendDst = dst;
          pendLen = len;
        }
      }
      int d = n - 2;
      while (d >= 0) {
        if (++row[d] < hi[d]) break;
        row[d] = lo[d];
        d--;
      }
      if (d < 0) break;
    }
    if (pendLen > 0) runs.add(new CopyRun(pendSrc, pendDst, pendLen));
    return runs;
  }

  /** A slice's box with row-major strides; 0-dimensional tensors become one dimension of one element. */
  private record Box(long[] offset, long[] shape, long[] strides, long start, long end) {
    static Box of(TensorSlice s) {
      long[] off = s.offset(), shape = s.shape();
      if (shape.length == 0) {
        off = new long[] {0};
        shape = new long[] {1};
      }
      long[] strides = new long[shape.length];
      long st = 1;
      for (int d = shape.length - 1; d >= 0; d--) {
        strides[d] = st;
        st *= shape[d];
      }
      return new Box(off, shape, strides, s.flatStart(), s.flatStart() + s.flatLength());
    }

    long flatIndex(long[] global) {
      long f = 0;
      for (int d = 0; d < global.length; d++) f += (global[d] - offset[d]) * strides[d];
      return f;
    }
  }
}
