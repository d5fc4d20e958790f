package dev.weft.models;

import dev.weft.comm.Communicator;

/**
 * What a model needs to know about where it runs: the seed for initial weights, its tensor-parallel
 * group (size 1 when the model is not split) and its pipeline stage.
 */
public record ModelContext(long seed, Communicator tp, int ppRank, int ppSize) {
  /** Not pipelined. */
  public ModelContext(long seed, Communicator tp) { this(seed, tp, 0, 1); }

  public int tpRank() { return tp == null ? 0 : tp.rank(); }
  public int tpSize() { return tp == null ? 1 : tp.size(); }
}
