package dev.weft.spec;

/**
 * How the work is split. {@code microBatches} is the number of micro-batches each data-parallel rank
 * runs per optimizer step: gradient accumulation when pp = 1, the pipeline's micro-batches when pp > 1
 * (Megatron's meaning).
 */
public record ParallelSpec(int dp, int tp, int pp, int microBatches, String schedule, int zero,
                           boolean sequenceParallel) {
  public int worldSize() { return dp * tp * pp; }
}
