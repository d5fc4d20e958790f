package dev.weft.util;

import java.util.Arrays;
import java.util.Collection;

/** The one median of repeated measurements (step times, bench samples): the middle value, or the mean of the two. */
public final class Median {
  private Median() {}

  /** The median of {@code xs}; NaN when there are none. */
  public static double of(double[] xs) {
    if (xs.length == 0) return Double.NaN;
    double[] a = xs.clone();
    Arrays.sort(a);
    return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  }

  /** The median of {@code xs}; NaN when there are none. */
  public static double of(Collection<Double> xs) { return of(xs.stream().mapToDouble(Double::doubleValue).toArray()); }
}
