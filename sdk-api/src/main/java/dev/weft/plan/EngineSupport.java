package dev.weft.plan;

import dev.weft.spec.ParallelSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;

/**
 * What the training engine can run today. A field whose engine is missing is refused here, by
 * name, instead of being silently ignored. Each capability that lands removes its line.
 */
final class EngineSupport {
  private EngineSupport() {}

  static void refuseUnsupported(TrainingSpec s) {
    ParallelSpec p = s.parallel();
    ContextSupport.refuseUnsupported(s);
    ExpertSupport.refuseUnsupported(s);
    int shard = p.zeroShardSize();
    if (shard > 0 && (p.zero() == 0 || shard == 1 || shard >= p.dp() || p.dp() % shard != 0)) {
      throw new SpecException("parallel.zeroShardSize", "HSDP shards ZeRO-1/2/3 state within groups of " + shard + " of the dp="
          + p.dp() + " ranks: use a divisor of parallel.dp between 2 and dp/2 with parallel.zero ≥ 1 (got zero=" + p.zero()
          + "), or 0 for plain ZeRO over all of dp");
    }
    if (p.sequenceParallel() && p.tp() == 1) {
      throw new SpecException("parallel.sequenceParallel", "needs tensor parallelism (it splits the sequence across the tp group); set parallel.tp > 1 or remove it");
    }
    if (p.pp() > 1 && p.zero() >= 2) {
      throw new SpecException("parallel.zero", "ZeRO-" + p.zero() + " cannot run with pipeline parallelism (pp=" + p.pp()
          + "): it would reduce-scatter gradients, and with ZeRO-3 gather parameters, on every micro-batch of every stage"
          + " while the schedule interleaves them, multiplying communication (DeepSpeed refuses it too); use parallel.zero=1");
    }
    boolean split = p.pp() > 1 && dev.weft.spec.SpecChoice.find(dev.weft.spec.PipelineSchedule.class, p.schedule())
        .map(dev.weft.spec.PipelineSchedule::splitsBackward).orElse(false);
    if (split && s.train().recompute()) {
      throw new SpecException("train.recompute", "parallel.schedule=" + p.schedule() + " keeps each micro-batch's graph from its"
          + " input-gradient pass to its weight-gradient pass, so it cannot recompute activations; turn recompute off or use 1f1b");
    }
    if (p.pp() > 1 || s.train().recompute()) {
      try {
        dev.weft.parallel.pipeline.Schedules.of(p.schedule(), p.pp(), p.microBatches(), p.pp() > 1 ? p.chunksPerStage() : 1);
      } catch (dev.weft.parallel.pipeline.ScheduleException | IllegalArgumentException e) {
        throw new SpecException("parallel.microBatches", e.getMessage());
      }
    }
    if (s.train().recompute() && p.pp() == 1 && p.zero() >= 2) {
      throw new SpecException("train.recompute", "activation recomputation runs through the pipeline executor, which supports ZeRO-0/1; use parallel.zero ≤ 1 with it");
    }
  }
}
