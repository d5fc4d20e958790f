package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.RankDevice;
import dev.weft.models.StagedModel;
import dev.weft.models.decoder.Decoder;
import dev.weft.parallel.context.ContextRouterPool;
import dev.weft.parallel.expert.StageRouterStats;

/**
 * Links a MoE decoder's pipeline stages so that its router losses pool every stage's routers (MoeRules allows it),
 * and its cp ranks so that they pool every part of the sequences.
 */
final class RouterLossStages {
  private RouterLossStages() {}

  /** The link set on the model, or null where there is nothing to carry (one stage, a dense model, losses off). */
  static StageRouterStats link(StagedModel model, Communicator pp, RankDevice device) {
    if (pp.size() == 1 || !(model instanceof Decoder d) || d.config().moe() == null || !d.config().moe().routerLosses()) return null;
    StageRouterStats link = new StageRouterStats(pp, d.config().moe().experts(), device.torch());
    d.linkRouterLosses(link);
    return link;
  }

  /** Under context parallelism, the router statistics summed over the cp group before the losses. */
  static void poolOverContext(Object model, Communicator cp) {
    if (cp.size() == 1 || !(model instanceof Decoder d) || d.config().moe() == null || !d.config().moe().routerLosses()) return;
    d.poolRouterLosses(new ContextRouterPool(cp));
  }
}
