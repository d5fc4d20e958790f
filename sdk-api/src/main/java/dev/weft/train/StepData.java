package dev.weft.train;

import dev.weft.comm.RankDevice;
import dev.weft.data.Batches;
import dev.weft.data.DistributedSampler;
import dev.weft.data.TokenSource;

/**
 * This rank's micro-batches of a step: which samples (the sampler) turned into tensors (the source), placed on the
 * rank's device (from pinned host memory, without blocking, on CUDA).
 */
record StepData(TokenSource source, DistributedSampler sampler, int seqLen, RankDevice device) {
  int microBatches() { return sampler.microBatches(); }

  int microBatchSize() { return sampler.microBatchSize(); }

  Batches.Batch batch(long step, int micro) {
    return place(Batches.make(source, sampler.firstSample(step - 1, micro), sampler.microBatchSize(), seqLen), device);
  }

  /** {@code b} on {@code device}. */
  static Batches.Batch place(Batches.Batch b, RankDevice device) {
    return device.cpu() ? b : new Batches.Batch(device.place(b.tokens()), device.place(b.targets()));
  }
}
