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
    if (p.cp() > 1) {
      throw new SpecException("parallel.cp", "context parallelism is not built yet; use parallel.cp=1");
    }
    if (p.ep() > 1) {
      throw new SpecException("parallel.ep", "expert parallelism is not wired into training yet (its layers, parallel.expert, are; the"
          + " optimizer does not yet reduce experts over only their replicas); use parallel.ep=1");
    }
    if (p.zeroShardSize() > 0) {
      throw new SpecException("parallel.zeroShardSize", "hybrid sharding (HSDP) is not built yet; use parallel.zeroShardSize=0");
    }
    if (p.sequenceParallel() && p.tp() == 1) {
      throw new SpecException("parallel.sequenceParallel", "needs tensor parallelism (it splits the sequence across the tp group); set parallel.tp > 1 or remove it");
    }
    if (p.pp() > 1 && p.zero() >= 2) {
      throw new SpecException("parallel.zero", "ZeRO-" + p.zero() + " cannot run with pipeline parallelism (pp=" + p.pp()
          + "): it would reduce-scatter gradients, and with ZeRO-3 gather parameters, on every micro-batch of every stage"
          + " while the schedule interleaves them, multiplying communication (DeepSpeed refuses it too); use parallel.zero=1");
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
