package dev.weft.models.decoder;

import dev.weft.spec.ParallelSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;

/** What a mixture-of-experts decoder runs with, refused in one line each where it cannot. */
final class MoeRules {
  private MoeRules() {}

  static void check(TrainingSpec spec, DecoderConfig c) {
    ParallelSpec p = spec.parallel();
    if (p.pp() > 1 && c.moe().routerLosses()) routerLossesOverStages(spec);
    if (c.moe().experts() % p.ep() != 0) {
      throw new SpecException("parallel.ep", "expert parallelism gives each of its ep=" + p.ep() + " ranks an equal share of the "
          + c.moe().experts() + " experts; use an ep that divides the model's number of experts");
    }
    if (p.sequenceParallel()) {
      throw new SpecException("parallel.sequenceParallel", "a mixture-of-experts model routes whole tokens to experts, which a"
          + " sequence split across tp cannot do; remove parallel.sequenceParallel");
    }
  }

  /**
   * The stages' router statistics meet once per micro-batch, forward then backward, in micro-batch order: one chunk
   * per stage, a schedule that runs each backward once, and no recomputation (its first forward has no gradients,
   * the one that does comes only after the last stage has needed the statistics).
   */
  private static void routerLossesOverStages(TrainingSpec spec) {
    ParallelSpec p = spec.parallel();
    String fix = "; or set model.config.router_aux_loss_coef: 0 and router_z_loss_coef: 0";
    if (!p.schedule().equals("1f1b") && !p.schedule().equals("gpipe")) {
      throw new SpecException("parallel.schedule", "the router losses pool every stage's routers, which is built for the 1f1b and"
          + " gpipe schedules; use parallel.schedule=1f1b with parallel.pp=" + p.pp() + fix);
    }
    if (spec.train().recompute()) {
      throw new SpecException("train.recompute", "the router losses pool every stage's routers in the forward with gradients,"
          + " which recomputation delays past the last stage's loss; turn train.recompute off with parallel.pp=" + p.pp() + fix);
    }
  }
}
