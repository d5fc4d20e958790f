package dev.weft.data;

/**
 * Which global samples a data-parallel rank reads. Step s consumes global samples
 * [s·B, (s+1)·B) (B = global batch); dp rank r takes a contiguous 1/dp of them, split into
 * micro-batches. The only state is the global step, so a run resumed with another dp reads exactly
 * the samples it would have read: none repeated, none skipped.
 */
public record DistributedSampler(int globalBatch, int dp, int dpRank, int microBatches) {
  public DistributedSampler {
    if (globalBatch % (dp * microBatches) != 0) {
      throw new IllegalArgumentException("globalBatch " + globalBatch + " not divisible by dp×microBatches " + dp * microBatches);
    }
    if (dpRank < 0 || dpRank >= dp) throw new IllegalArgumentException("dpRank " + dpRank + " outside dp=" + dp);
  }

  public int microBatchSize() { return globalBatch / (dp * microBatches); }

  /** Global index of the first sample of micro-batch {@code micro} of step {@code step} (0-based) on this rank. */
  public long firstSample(long step, int micro) {
    return step * globalBatch + (long) dpRank * (globalBatch / dp) + (long) micro * microBatchSize();
  }
}
