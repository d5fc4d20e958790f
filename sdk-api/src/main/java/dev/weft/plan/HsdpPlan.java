package dev.weft.plan;

import dev.weft.spec.ParallelSpec;
import dev.weft.spec.TrainingSpec;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code weft plan}'s HSDP line: what a rank sends per step inside its shard group and across its replicate group,
 * and which of it crosses hosts. A shard group is {@code zeroShardSize × cp × tp} consecutive ranks (the mesh order,
 * see {@link dev.weft.comm.DeviceMesh}), so it stays on one host when {@code deployment.procsPerNode} is a multiple
 * of that; the replicate groups then carry the only data-parallel traffic between hosts. Pure.
 */
public final class HsdpPlan {
  private HsdpPlan() {}

  public static Optional<String> line(TrainingSpec spec, List<RankPlan> ranks) {
    ParallelSpec p = spec.parallel();
    if (p.zeroShardSize() == 0 || ranks.isEmpty()) return Optional.empty();
    RankPlan r = ranks.stream().max(java.util.Comparator.comparingDouble(RankPlan::dpBytes)).orElseThrow();
    int span = p.zeroShardSize() * p.cp() * p.tp();
    int perHost = spec.deployment().procsPerNode();
    boolean local = perHost % span == 0;
    String where = local
        ? String.format(Locale.ROOT, "shard groups host-local (%d ranks per host): only the replicate all-reduce crosses hosts,"
            + " %s per host", perHost, Bytes.human(perHost * r.dpReplicateBytes()))
        : String.format(Locale.ROOT, "shard groups cross hosts too: one spans %d consecutive ranks, a host runs %d"
            + " (deployment.procsPerNode); make that a multiple of %d", span, perHost, span);
    return Optional.of(String.format(Locale.ROOT, "HSDP: ZeRO-%d within %d shard groups of %d dp ranks, replicated across them;"
        + " per rank and step: shard group %s (gathers and reductions), replicate group %s (all-reduce of the gradient shard); %s",
        p.zero(), p.dp() / p.zeroShardSize(), p.zeroShardSize(), Bytes.human(r.dpBytes()), Bytes.human(r.dpReplicateBytes()), where));
  }
}
