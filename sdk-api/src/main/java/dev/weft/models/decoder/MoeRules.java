package dev.weft.models.decoder;

import dev.weft.spec.ParallelSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;

/** What a mixture-of-experts decoder runs with, refused in one line each where it cannot. */
final class MoeRules {
  private MoeRules() {}

  static void check(TrainingSpec spec, DecoderConfig c) {
    ParallelSpec p = spec.parallel();
    if (p.pp() > 1 && c.moe().routerLosses()) {
      throw new SpecException("model.config.router_aux_loss_coef", "the router losses are not carried across pipeline stages yet;"
          + " set model.config.router_aux_loss_coef: 0 and router_z_loss_coef: 0 with parallel.pp > 1");
    }
    if (c.moe().experts() % p.ep() != 0) {
      throw new SpecException("parallel.ep", "expert parallelism gives each of its ep=" + p.ep() + " ranks an equal share of the "
          + c.moe().experts() + " experts; use an ep that divides the model's number of experts");
    }
    if (p.sequenceParallel()) {
      throw new SpecException("parallel.sequenceParallel", "a mixture-of-experts model routes whole tokens to experts, which a"
          + " sequence split across tp cannot do; remove parallel.sequenceParallel");
    }
  }
}
