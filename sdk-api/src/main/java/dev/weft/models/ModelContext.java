package dev.weft.models;

import dev.weft.spec.ParallelSpec;
import dev.weft.spec.SpecException;

/**
 * What a model needs to know about where it runs, handed over by the framework: the {@link Layers}
 * to build itself from (already plain, tensor-parallel and/or ZeRO-3-wrapped as the run's layout
 * asks; a model never names those), its seed, and its pipeline stage.
 */
public record ModelContext(long seed, Layers layers, ParallelSpec parallel, int ppRank) {
  public int tpSize() { return layers.splits(); }
  public int ppSize() { return parallel.pp(); }

  /** How {@code layerCount} layers split over this run's pipeline stages; the same rule {@link #partitionFor} checks at validation. */
  public LayerPartition partition(int layerCount) { return partitionFor(parallel, layerCount); }

  /** As listed in {@code parallel.stages}, or as even as possible; a SpecException naming the field when that cannot work. */
  public static LayerPartition partitionFor(ParallelSpec p, int layerCount) {
    int chunks = p.pp() > 1 ? p.chunksPerStage() : 1;
    try {
      LayerPartition part = p.stages().isEmpty() ? LayerPartition.even(layerCount, p.pp(), chunks)
          : new LayerPartition(layerCount, p.pp(), chunks, p.stages());
      return p.vShaped() ? part.inV() : part;
    } catch (IllegalArgumentException e) {
      throw new SpecException(p.stages().isEmpty() ? "parallel.pp" : "parallel.stages", e.getMessage());
    }
  }
}
