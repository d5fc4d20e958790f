package dev.weft.plan;

import dev.weft.spec.ParallelSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;

/**
 * What expert parallelism runs with today (ep inside dp, with ZeRO 0–3, HSDP, tp, pp (every schedule), cp, recomputation, LoRA and DPO); everything
 * else is refused in one line naming the field. The model's own rule (ep divides the experts) is the MoE decoder's.
 */
final class ExpertSupport {
  private ExpertSupport() {}

  static void refuseUnsupported(TrainingSpec s) {
    ParallelSpec p = s.parallel();
    if (p.ep() == 1) return;
    if (ExpertPlan.routedParameters(s) == 0) {
      throw new SpecException("parallel.ep", "expert parallelism splits a mixture-of-experts model's routed experts, and model.factory="
          + s.model().factory() + " has none here; use parallel.ep=1 (or a MoE family: mixtral, qwen2_moe, qwen3_moe)");
    }
    if (p.dp() % p.ep() != 0) {
      throw new SpecException("parallel.ep", "expert parallelism splits the experts over ep consecutive ranks of the dp group, so"
          + " ep=" + p.ep() + " must divide parallel.dp=" + p.dp() + "; use a divisor of dp");
    }
  }
}
