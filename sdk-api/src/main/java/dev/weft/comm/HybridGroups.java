package dev.weft.comm;

import java.util.ArrayList;
import java.util.List;

/**
 * HSDP's two sub-groups of a rank's data-parallel group: the shard group (its block of {@code shardSize}
 * consecutive dp ranks, which are neighbouring global ranks and so one host when ranks are placed host by host)
 * and the replicate group (the ranks at the same place in every other block). ZeRO shards within the first and
 * all-reduces the shards across the second. With {@code shardSize} 0 or dp the shard group is the dp group itself
 * and the replicate group a solo one. Made after {@link Distributed}'s groups, shard group first, on every rank.
 * Expert parallelism cuts dp the same way ({@link #experts}): the ep group is the block of ep consecutive dp ranks
 * that split the experts, the edp group the ranks holding the same experts (torchtitan's and Megatron's ep inside dp).
 */
public final class HybridGroups implements AutoCloseable {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(HybridGroups.class);

  private final Communicator shard;
  private final Communicator replicate;
  private final boolean owned; // made here (otherwise the shard group is Distributed's dp group)

  private HybridGroups(Communicator shard, Communicator replicate, boolean owned) {
    this.shard = shard;
    this.replicate = replicate;
    this.owned = owned;
  }

  /** The global ranks of the shard group of the rank at dp index {@code dpIndex}, given its dp group's global ranks. */
  public static List<Integer> shardRanks(List<Integer> dpGroup, int dpIndex, int shardSize) {
    int first = dpIndex / shardSize * shardSize;
    return List.copyOf(dpGroup.subList(first, first + shardSize));
  }

  /** The global ranks of its replicate group: one per shard group, at the same position. */
  public static List<Integer> replicateRanks(List<Integer> dpGroup, int dpIndex, int shardSize) {
    List<Integer> out = new ArrayList<>();
    for (int i = dpIndex % shardSize; i < dpGroup.size(); i += shardSize) out.add(dpGroup.get(i));
    return out;
  }

  /** The groups for {@code shardSize} (0 or dp: plain ZeRO over the whole dp group). */
  public static HybridGroups of(Distributed dist, int shardSize) {
    int dp = dist.mesh().dp();
    if (shardSize == 0 || shardSize == dp) return new HybridGroups(dist.dp(), new SoloCommunicator("dpReplicate"), false);
    HybridGroups g = cut(dist, shardSize, "dpShard", "dpReplicate");
    log.info("rank {}: ZeRO shards within {}, replicated across {}", dist.rank(), g.shard.name(), g.replicate.name());
    return g;
  }

  /**
   * Expert parallelism's groups: {@link #shard} is the ep group (ep consecutive dp ranks, each holding E/ep experts),
   * {@link #replicate} the edp group (the dp/ep ranks holding the same experts, over which their gradients reduce).
   */
  public static HybridGroups experts(Distributed dist, int ep) {
    if (ep == 1) return new HybridGroups(new SoloCommunicator("ep"), dist.dp(), false);
    if (ep == dist.mesh().dp()) return new HybridGroups(dist.dp(), new SoloCommunicator("edp"), false);
    HybridGroups g = cut(dist, ep, "ep", "edp");
    log.info("rank {}: experts split over {}, replicated across {}", dist.rank(), g.shard.name(), g.replicate.name());
    return g;
  }

  private static HybridGroups cut(Distributed dist, int size, String blockKind, String acrossKind) {
    int dp = dist.mesh().dp();
    if (dp % size != 0) throw new IllegalArgumentException(blockKind + " size " + size + " does not divide dp " + dp);
    List<Integer> group = dist.mesh().group(DeviceMesh.Dim.DP, dist.rank());
    int index = dist.coord().dp();
    Communicator block = make(dist, blockKind, shardRanks(group, index, size), index % size);
    Communicator across = make(dist, acrossKind, replicateRanks(group, index, size), index / size);
    return new HybridGroups(block, across, true);
  }

  private static Communicator make(Distributed dist, String kind, List<Integer> ranks, int groupRank) {
    String name = kind + ranks.toString().replace(" ", "");
    if (ranks.size() == 1) return new SoloCommunicator(name);
    return dist.backend().createGroup(dist.store(), name, groupRank, ranks.size(), dist.dp().timeout());
  }

  /** Where parameters, gradients and optimizer state are sharded. */
  public Communicator shard() { return shard; }

  /** Across which the gradient shards are all-reduced (solo without HSDP). */
  public Communicator replicate() { return replicate; }

  @Override
  public void close() {
    if (owned || replicate instanceof SoloCommunicator) replicate.close();
    if (owned) shard.close();
  }
}
