package dev.weft.plan;

import dev.weft.spec.ParallelSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;

/** What context parallelism runs with today; everything else is refused in one line naming the field. */
final class ContextSupport {
  private ContextSupport() {}

  static void refuseUnsupported(TrainingSpec s) {
    ParallelSpec p = s.parallel();
    if (p.cp() == 1) return;
    if (!"ring".equals(p.cpMethod())) {
      throw new SpecException("parallel.cpMethod", "cpMethod " + p.cpMethod() + " is not built yet; use parallel.cpMethod=ring");
    }
    int split = 2 * p.cp() * (p.sequenceParallel() ? p.tp() : 1);
    if (s.data().seqLen() % split != 0) {
      throw new SpecException("data.seqLen", "context parallelism cuts each sequence into 2·cp" + (p.sequenceParallel() ? "·tp" : "")
          + " = " + split + " chunks; make data.seqLen (" + s.data().seqLen() + ") a multiple of " + split);
    }
    if (s.train().recompute()) {
      throw new SpecException("train.recompute", "activation recomputation with context parallelism (cp=" + p.cp() + ") is not built yet; remove train.recompute or set parallel.cp=1");
    }
    if (s.train().dpoObjective()) {
      throw new SpecException("train.objective", "DPO with context parallelism (cp=" + p.cp() + ") is not built yet; set parallel.cp=1");
    }
  }
}
