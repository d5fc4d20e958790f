package dev.weft.metrics;

/**
 * Model FLOPs utilisation: a step's model FLOP/s over the peak of all ranks, the peak of one rank given by
 * {@code WEFT_PEAK_FLOPS} (Weft does not guess a device's peak).
 */
public final class Mfu {
  public static final String PEAK_FLOPS_ENV = "WEFT_PEAK_FLOPS";

  private Mfu() {}

  /** {@code modelFlopsPerS / (peakPerRank × worldSize)}; NaN while the peak is unknown (NaN or not positive). */
  public static double of(double modelFlopsPerS, double peakPerRank, int worldSize) {
    return Double.isNaN(peakPerRank) || peakPerRank <= 0 ? Double.NaN : modelFlopsPerS / (peakPerRank * Math.max(1, worldSize));
  }
}
