package dev.weft.train;

import dev.weft.data.Batches;
import dev.weft.data.DistributedSampler;
import dev.weft.data.TokenSource;

/** This rank's micro-batches of a step: which samples (the sampler) turned into tensors (the source). */
record StepData(TokenSource source, DistributedSampler sampler, int seqLen) {
  int microBatches() { return sampler.microBatches(); }

  int microBatchSize() { return sampler.microBatchSize(); }

  Batches.Batch batch(long step, int micro) {
    return Batches.make(source, sampler.firstSample(step - 1, micro), sampler.microBatchSize(), seqLen);
  }
}
