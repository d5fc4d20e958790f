package dev.weft.bench;

import dev.weft.util.Median;
import java.util.Arrays;
import java.util.Locale;

/** Medians and spreads of repeated measurements. */
public final class Stats {
  private Stats() {}

  public static double median(double[] xs) { return Median.of(xs); }

  public static double min(double[] xs) { return Arrays.stream(xs).min().orElse(Double.NaN); }

  public static double max(double[] xs) { return Arrays.stream(xs).max().orElse(Double.NaN); }

  /** Element-wise {@code a[i] / b[i]}. */
  public static double[] ratios(double[] a, double[] b) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) r[i] = a[i] / b[i];
    return r;
  }

  /** Quantile {@code q} in [0, 1] (linear interpolation). */
  public static double quantile(double[] xs, double q) {
    double[] a = xs.clone();
    Arrays.sort(a);
    double pos = q * (a.length - 1);
    int lo = (int) Math.floor(pos), hi = (int) Math.ceil(pos);
    return a[lo] + (pos - lo) * (a[hi] - a[lo]);
  }
}
