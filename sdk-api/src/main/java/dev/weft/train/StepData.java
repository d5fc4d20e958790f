package dev.weft.train;

import dev.weft.comm.RankDevice;
import dev.weft.data.Batches;
import dev.weft.data.DistributedSampler;
import dev.weft.data.TokenSource;
import dev.weft.parallel.context.ContextSplit;
import dev.weft.parallel.context.Zigzag;
import java.util.ArrayList;
import java.util.List;

/**
 * This rank's micro-batches of a step: which samples (the sampler) turned into tensors (the source), placed on the
 * rank's device (from pinned host memory, without blocking, on CUDA).
 */
record StepData(TokenSource source, DistributedSampler sampler, int seqLen, RankDevice device, Zigzag context) {
  /** Without context parallelism. */
  StepData(TokenSource source, DistributedSampler sampler, int seqLen, RankDevice device) {
    this(source, sampler, seqLen, device, new Zigzag(1, 0));
  }

  int microBatches() { return sampler.microBatches(); }

  int microBatchSize() { return sampler.microBatchSize(); }

  /** This rank's micro-batches of {@code step} (1-based), in host memory: counted there, then {@link #place placed}. */
  List<Batches.Batch> hostBatches(long step) {
    List<Batches.Batch> out = new ArrayList<>(microBatches());
    for (int m = 0; m < microBatches(); m++) {
      out.add(Batches.make(source, sampler.firstSample(step - 1, m), sampler.microBatchSize(), seqLen));
    }
    return out;
  }

  /** {@code batches} on this rank's device, cut to this rank's tokens under context parallelism. */
  List<Batches.Batch> place(List<Batches.Batch> batches) {
    List<Batches.Batch> out = new ArrayList<>(batches.size());
    for (Batches.Batch b : batches) out.add(place(ContextSplit.of(b, context), device));
    return out;
  }

  /** {@code b} on {@code device}. */
  static Batches.Batch place(Batches.Batch b, RankDevice device) {
    if (device.cpu()) return b;
    dev.weft.data.PackedDocuments d = b.documents();
    return new Batches.Batch(device.place(b.tokens()), device.place(b.targets()),
        d == null ? null : new dev.weft.data.PackedDocuments(device.place(d.positions()), device.place(d.ids())));
  }
}
