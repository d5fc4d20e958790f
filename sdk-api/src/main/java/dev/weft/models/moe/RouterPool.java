package dev.weft.models.moe;

/**
 * Where the ranks that split one sequence meet before the router losses (set by the framework): under context
 * parallelism each rank routes only its part of every sequence, while the auxiliary loss is a product of the whole
 * batch's fractions and probabilities, so the statistics are summed over those ranks first.
 */
public interface RouterPool {
  /** Replaces {@code stats} with the sums over the ranks sharing this batch; the gradient reaches every rank's part. */
  void pool(RouterLosses stats);
}
