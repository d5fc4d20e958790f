package dev.weft.models;

import java.util.List;

/**
 * Which transformer layers each virtual stage holds: contiguous ranges covering every layer once,
 * as even as possible (earlier stages take the remainder) or as given. Virtual stage k lives on
 * pipeline rank k mod p as its chunk k div p (Megatron's interleaving), or, {@code vShaped} (two chunks,
 * the zbv schedule), on rank k for k &lt; p and rank 2p−1−k after. Pure arithmetic.
 */
public record LayerPartition(int layers, int stages, int chunks, List<Integer> counts, boolean vShaped) {
  public LayerPartition(int layers, int stages, int chunks, List<Integer> counts) { this(layers, stages, chunks, counts, false); }

  public LayerPartition {
    if (vShaped && chunks != 2) throw new IllegalArgumentException("a V-shaped partition has 2 chunks per stage, got " + chunks);
    counts = List.copyOf(counts);
    if (counts.size() != stages * chunks) {
      throw new IllegalArgumentException("parallel.stages lists " + counts.size() + " stages but pp × virtual stages = "
          + stages * chunks + "; list one layer count per (virtual) stage");
    }
    int sum = counts.stream().mapToInt(Integer::intValue).sum();
    if (sum != layers) {
      throw new IllegalArgumentException("parallel.stages adds up to " + sum + " layers but the model has " + layers
          + "; make the counts sum to " + layers);
    }
    for (int c : counts) {
      if (c < 1) throw new IllegalArgumentException("parallel.stages has a stage with " + c + " layers; every stage needs at least one");
    }
  }

  /** Even split of {@code layers} over {@code stages × chunks} virtual stages (needs layers ≥ that product). */
  public static LayerPartition even(int layers, int stages, int chunks) {
    int n = stages * chunks;
    if (layers < n) {
      throw new IllegalArgumentException(layers + " layers cannot fill pp × virtual stages = " + n
          + " stages; use fewer stages or a deeper model");
    }
    Integer[] counts = new Integer[n];
    for (int k = 0; k < n; k++) counts[k] = layers / n + (k < layers % n ? 1 : 0);
    return new LayerPartition(layers, stages, chunks, List.of(counts));
  }

  public int virtualStage(int stage, int chunk) {
    return vShaped && chunk == 1 ? 2 * stages - 1 - stage : chunk * stages + stage;
  }

  /** The same split, its chunks placed in a V (the zbv schedule). */
  public LayerPartition inV() { return new LayerPartition(layers, stages, chunks, counts, true); }

  public int virtualStages() { return stages * chunks; }

  /** First layer of virtual stage {@code k}. */
  public int start(int k) {
    int s = 0;
    for (int i = 0; i < k; i++) s += counts.get(i);
    return s;
  }

  public int end(int k) { return start(k) + counts.get(k); }
}
