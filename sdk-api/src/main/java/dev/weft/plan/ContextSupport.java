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
    if ("alltoall".equals(p.cpMethod())) {
      double heads = dev.weft.models.ModelFactories.lookup(s.model().factory()).shape(s).map(m -> m.heads()).orElse(0.0);
      if (heads > 0 && (heads / p.tp()) % p.cp() != 0) {
        throw new SpecException("parallel.cpMethod", "alltoall splits each rank's " + (long) (heads / p.tp()) + " attention heads over cp="
            + p.cp() + ", which does not divide them; use parallel.cpMethod=allgather or a cp that divides the heads");
      }
    }
    int split = 2 * p.cp() * (p.sequenceParallel() ? p.tp() : 1);
    if (s.data().seqLen() % split != 0) {
      throw new SpecException("data.seqLen", "context parallelism cuts each sequence into 2·cp" + (p.sequenceParallel() ? "·tp" : "")
          + " = " + split + " chunks; make data.seqLen (" + s.data().seqLen() + ") a multiple of " + split);
    }
  }
}
