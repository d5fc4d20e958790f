package dev.weft.bench;

import java.util.Locale;

/**
 * One line of the results table: a measured value, the reference it is compared with, and their
 * ratio. For a plain comparison {@code ratio = measured / reference}. For interleaved A/B pairs
 * ({@code pairRatios} not null) {@code measured} and {@code reference} are the medians of each side
 * and {@code ratio} is the median of the per-pair ratios, which load spikes from other processes
 * (hitting both sides of a pair alike) disturb far less than the ratio of the two medians.
 * {@code spread} says how much the repeated measurements disagreed, or is a note for exact counts.
 * A reference of zero (a CPU time below the clock's resolution, say) has no ratio: NaN, printed "n/a".
 */
public record BenchRow(String benchmark, String quantity, double measured, double reference, String unit,
                       double ratio, String target, String spread, double[] pairRatios) {
  public static BenchRow of(String benchmark, String quantity, double measured, double reference, String unit,
                            String target, String spread) {
    return new BenchRow(benchmark, quantity, measured, reference, unit, ratio(measured, reference), target, spread, null);
  }

  /** {@code measured / reference}, or NaN where the reference is zero. */
  public static double ratio(double measured, double reference) {
    return reference == 0 ? Double.NaN : measured / reference;
  }

  public static BenchRow paired(String benchmark, String quantity, double measuredMedian, double referenceMedian,
                                String unit, double[] pairRatios, String target, String note) {
    String spread = String.format(Locale.ROOT, "median of %d pair ratios; p25–p75 %.3f–%.3f; ratio of medians %.3f",
        pairRatios.length, Stats.quantile(pairRatios, 0.25), Stats.quantile(pairRatios, 0.75), measuredMedian / referenceMedian);
    return new BenchRow(benchmark, quantity, measuredMedian, referenceMedian, unit, Stats.median(pairRatios), target,
        note.isEmpty() ? spread : spread + "; " + note, pairRatios.clone());
  }
}
