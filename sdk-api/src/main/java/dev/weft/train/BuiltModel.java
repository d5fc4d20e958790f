package dev.weft.train;

import dev.weft.comm.HybridGroups;
import dev.weft.models.LanguageModel;
import dev.weft.models.Parameters.Param;
import dev.weft.models.lora.LoraLayers;
import dev.weft.parallel.context.ContextLayers;
import dev.weft.parallel.data.ExpertGroups;
import dev.weft.parallel.data.Zero3Layers;
import dev.weft.parallel.tensor.TpOps;
import java.util.List;

/**
 * What {@link ModelBuilder#forTraining} built for one training rank, as one value: the model, the parameters the
 * optimizer owns, and the handles the step reads. A handle is null where the run's layout has none of it.
 *
 * @param trainable the parameters with a gradient (a frozen LoRA base has none)
 * @param tpOps the tensor-parallel collectives (tp &gt; 1): their exposed wait, their held backward hooks
 * @param context ring attention over the cp group (cp &gt; 1): its exposed wait
 * @param adapters the LoRA decorator (train.lora): DPO's reference is the policy with them off
 * @param zeroUnits ZeRO's per-layer gate (parallel.zero &ge; 1)
 * @param expertGroups expert parallelism's ep (shard) and edp (replicate) sub-groups of dp
 * @param experts this rank's experts' parameters and the groups they reduce over ({@link ExpertGroups#none()} without ep)
 */
public record BuiltModel(LanguageModel model, List<Param> trainable, TpOps tpOps, ContextLayers context, LoraLayers adapters,
                         Zero3Layers zeroUnits, HybridGroups expertGroups, ExpertGroups experts) {
  public BuiltModel {
    trainable = List.copyOf(trainable);
  }

  /**
   * The layer unit of each trainable parameter when the optimizer gates per layer, else null: ZeRO-3 needs every
   * parameter in a unit; stages 1-2 gate per layer only when that holds.
   */
  int[] layerUnits(int zero) {
    if (zeroUnits == null || !(zero == 3 || zeroUnits.units().length == trainable.size())) return null;
    return zeroUnits.units();
  }

  /** Nanoseconds the step waited for tensor- and context-parallel collectives since the last call; drops tp's held hooks. */
  long takeLayerWaitNanos() {
    long ns = 0;
    if (tpOps != null) {
      ns += tpOps.takeWaitNanos();
      tpOps.dropPendingHooks();
    }
    if (context != null) ns += context.takeWaitNanos(); // ring exchanges attention did not hide
    return ns;
  }
}
