package dev.weft.spec;

/**
 * What the training engine can run today. A field whose engine is missing is refused here, by
 * name, instead of being silently ignored. Each capability that lands removes its line.
 */
final class EngineSupport {
  private EngineSupport() {}

  static void refuseUnsupported(TrainingSpec s) {
    ParallelSpec p = s.parallel();
    if (p.sequenceParallel() && p.tp() == 1) {
      throw new SpecException("parallel.sequenceParallel", "needs tensor parallelism (it splits the sequence across the tp group); set parallel.tp > 1 or remove it");
    }
    refuse(p.pp() > 1, "parallel.pp", "pipeline parallelism (pp=" + p.pp() + ")");
    refuse(s.elastic().enabled(), "elastic.enabled", "elastic training");
    refuse(s.train().recompute(), "train.recompute", "activation recomputation");
    refuse(s.checkpoint().every() > 0, "checkpoint.every", "checkpointing");
  }

  private static void refuse(boolean used, String field, String what) {
    if (used) throw new SpecException(field, what + " is not supported yet in this version of Weft; remove the setting");
  }
}
