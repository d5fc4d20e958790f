package dev.weft.checkpoint;

import dev.weft.models.Parameters;
import java.util.Arrays;

/**
 * Which elements of a global tensor a rank holds: the box {@code (offset, shape)} of the global
 * tensor, and of that box's row-major flattening the elements {@code [flatStart, flatStart + flatLength)}.
 * Tensor parallelism is a box along one dimension, ZeRO a flat range of a (box-sliced) tensor, a
 * replica the whole box with the full range. A 0-dimensional tensor is one element.
 */
public record TensorSlice(long[] globalShape, long[] offset, long[] shape, long flatStart, long flatLength) {
  public TensorSlice {
    globalShape = globalShape.clone();
    offset = offset.clone();
    shape = shape.clone();
    if (offset.length != globalShape.length || shape.length != globalShape.length) {
      throw new IllegalArgumentException("slice " + describe(globalShape, offset, shape, flatStart, flatLength)
          + ": offset and shape need one entry per dimension of the global shape");
    }
    for (int d = 0; d < globalShape.length; d++) {
      if (globalShape[d] < 0 || offset[d] < 0 || shape[d] < 0 || offset[d] + shape[d] > globalShape[d]) {
        throw new IllegalArgumentException("slice " + describe(globalShape, offset, shape, flatStart, flatLength)
            + ": dimension " + d + " leaves the global tensor");
      }
    }
    long box = product(shape);
    if (flatStart < 0 || flatLength < 0 || flatStart + flatLength > box) {
      throw new IllegalArgumentException("slice " + describe(globalShape, offset, shape, flatStart, flatLength)
          + ": flat range leaves the box of " + box + " elements");
    }
  }

  /** The whole tensor. */
  public static TensorSlice whole(long... globalShape) {
    return box(globalShape, new long[globalShape.length], globalShape);
  }

  /** The box {@code (offset, shape)}, all of it. */
  public static TensorSlice box(long[] globalShape, long[] offset, long[] shape) {
    return new TensorSlice(globalShape, offset, shape, 0, product(shape));
  }

  /** Part {@code index} of {@code count} equal parts along {@code dim} (tensor parallelism). */
  public static TensorSlice part(long[] globalShape, int dim, int index, int count) {
    if (dim < 0 || dim >= globalShape.length || count < 1 || index < 0 || index >= count || globalShape[dim] % count != 0) {
      throw new IllegalArgumentException("cannot split dimension " + dim + " of " + Arrays.toString(globalShape)
          + " into " + count + " equal parts (part " + index + ")");
    }
    long[] offset = new long[globalShape.length];
    long[] shape = globalShape.clone();
    shape[dim] = globalShape[dim] / count;
    offset[dim] = index * shape[dim];
    return box(globalShape, offset, shape);
  }

  /** The slice a model parameter covers: its tensor-parallel part, or the whole tensor. */
  public static TensorSlice of(Parameters.Param p) {
    return p.isSharded() ? part(p.globalShape(), p.shardDim(), p.shardIndex(), p.shardCount()) : whole(p.globalShape());
  }

  /** Elements {@code [start, start + length)} of this slice's box (ZeRO's flat shard of it). */
  public TensorSlice flatRange(long start, long length) {
    return new TensorSlice(globalShape, offset, shape, start, length);
  }

  /**
   * Part {@code index} of {@code count} of this box's flattening, each {@code ceil(numel / count)} long,
   * the last ones shorter or empty (the usual ZeRO partition without padding).
   */
  public TensorSlice flatPart(int index, int count) {
    long n = boxNumel();
    long each = (n + count - 1) / count;
    long start = Math.min(n, index * each);
    return flatRange(start, Math.min(each, n - start));
  }

  public long boxNumel() { return product(shape); }

  /** Elements this slice holds. */
  public long numel() { return flatLength; }

  public boolean isWholeBox() { return flatStart == 0 && flatLength == boxNumel(); }

  public boolean isWholeTensor() { return isWholeBox() && Arrays.equals(shape, globalShape); }

  /** The shape of a tensor holding this slice: the box when whole, else one dimension of {@code flatLength}. */
  public long[] localShape() { return isWholeBox() ? shape.clone() : new long[] {flatLength}; }

  public static long product(long[] dims) {
    long n = 1;
    for (long d : dims) n = Math.multiplyExact(n, d);
    return n;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TensorSlice s && Arrays.equals(globalShape, s.globalShape) && Arrays.equals(offset, s.offset)
        && Arrays.equals(shape, s.shape) && flatStart == s.flatStart && flatLength == s.flatLength;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(globalShape) * 31 + Arrays.hashCode(offset) * 17 + Arrays.hashCode(shape) + Long.hashCode(flatStart);
  }

  @Override
  public String toString() { return describe(globalShape, offset, shape, flatStart, flatLength); }

  @Override public long[] globalShape() { return globalShape.clone(); }
  @Override public long[] offset() { return offset.clone(); }
  @Override public long[] shape() { return shape.clone(); }

  private static String describe(long[] g, long[] o, long[] s, long start, long len) {
    return Arrays.toString(g) + " box offset " + Arrays.toString(o) + " shape " + Arrays.toString(s)
        + " elements [" + start + ", " + (start + len) + ")";
  }
}
