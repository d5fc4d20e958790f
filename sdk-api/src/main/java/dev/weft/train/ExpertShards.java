package dev.weft.train;

import dev.weft.comm.HybridGroups;
import dev.weft.models.LanguageModel;
import dev.weft.parallel.data.ExpertGroups;
import dev.weft.parallel.expert.ExpertParallelLayers;

/** Expert parallelism as the training loop hands it on: this rank's experts' parameters and the groups they reduce over. */
final class ExpertShards {
  private ExpertShards() {}

  /** {@code groups}: {@link dev.weft.comm.Distributed#expertGroups}'s ep (shard) and edp (replicate) groups. */
  static ExpertGroups of(LanguageModel model, HybridGroups groups) {
    if (!(model.layers() instanceof ExpertParallelLayers e) || e.expertParameters().isEmpty()) return ExpertGroups.none();
    return new ExpertGroups(e.expertParameters(), groups.replicate(), groups.shard());
  }
}
