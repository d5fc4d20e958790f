package dev.weft.models;

import dev.weft.comm.Communicator;

/**
 * What a model needs to know about where it runs: the seed for initial weights and its tensor-parallel
 * group (size 1 when the model is not split).
 */
public record ModelContext(long seed, Communicator tp) {
  public int tpRank() { return tp == null ? 0 : tp.rank(); }
  public int tpSize() { return tp == null ? 1 : tp.size(); }
}
