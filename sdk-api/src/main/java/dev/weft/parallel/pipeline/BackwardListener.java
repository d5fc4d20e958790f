package dev.weft.parallel.pipeline;

/**
 * Told right before each backward. {@code lastOfChunk} is true for the chunk's final backward of
 * the step: the moment to let data-parallel gradient buckets reduce (e.g.
 * {@code buckets.setSyncEnabled(lastOfChunk)}), so gradients are synchronised once, after the last micro-batch.
 */
@FunctionalInterface
public interface BackwardListener {
  BackwardListener NONE = (microBatch, chunk, lastOfChunk) -> {};

  void beforeBackward(int microBatch, int chunk, boolean lastOfChunk);
}
