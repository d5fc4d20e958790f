package dev.weft.elastic;

import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The mesh for a generation of {@code nodes} nodes: tp × pp stay, dp takes the rest, and the number
 * of micro-batches changes so that the global batch and the micro-batch size stay the same
 * (gradient accumulation absorbs the lost or gained replicas). Pure arithmetic.
 */
public record MembershipPlan(int nodes, int worldSize, int dp, int microBatches) {

  /** The fixed shape of a run: processes per node, tp, pp, global batch and micro-batch size. */
  public record Shape(int procsPerNode, int tp, int pp, int globalBatch, int microBatchSize) {
    public Shape {
      if (procsPerNode < 1 || tp < 1 || pp < 1 || globalBatch < 1 || microBatchSize < 1) {
        throw new IllegalArgumentException("every size must be at least 1: " + this);
      }
    }

    /** The shape a spec implies: micro-batch size = globalBatch / (dp × microBatches) as written. */
    public static Shape of(dev.weft.spec.TrainingSpec spec, int procsPerNode) {
      var p = spec.parallel();
      int b = spec.train().globalBatch();
      int perStep = p.dp() * p.microBatches();
      if (b % perStep != 0) {
        throw new SpecException("train.globalBatch", b + " is not divisible by dp × microBatches = " + perStep);
      }
      return new Shape(procsPerNode, p.tp(), p.pp(), b, b / perStep);
    }
  }

  /** The plan for {@code nodes} nodes, or null when that many cannot keep the global batch. */
  public static MembershipPlan forNodes(int nodes, Shape s) {
    if (nodes < 1) return null;
    long world = (long) nodes * s.procsPerNode();
    int modelRanks = s.tp() * s.pp();
    if (world % modelRanks != 0 || world > Integer.MAX_VALUE) return null;
    int dp = (int) (world / modelRanks);
    long perReplicaStep = (long) dp * s.microBatchSize();
    if (s.globalBatch() % perReplicaStep != 0) return null;
    int micro = (int) (s.globalBatch() / perReplicaStep);
    return new MembershipPlan(nodes, (int) world, dp, micro);
  }

  /** Node counts in [min, max] that keep the global batch, ascending. */
  public static List<Integer> workableNodeCounts(int min, int max, Shape s) {
    List<Integer> ok = new ArrayList<>();
    for (int n = Math.max(1, min); n <= max; n++) if (forNodes(n, s) != null) ok.add(n);
    return ok;
  }

  /** The largest workable node count not above {@code available} (and within [min, max]); 0 when none. */
  public static int largestWorkable(int available, int min, int max, Shape s) {
    for (int n = Math.min(available, max); n >= min; n--) if (forNodes(n, s) != null) return n;
    return 0;
  }

  /**
   * Refuses, before anything starts, a range of node counts in which some count cannot keep the
   * global batch, naming the world sizes that can.
   */
  public static void requireAllWorkable(int min, int max, Shape s) {
    List<Integer> bad = new ArrayList<>();
    for (int n = min; n <= max; n++) if (forNodes(n, s) == null) bad.add(n);
    if (bad.isEmpty()) return;
    List<Integer> good = workableNodeCounts(1, Math.max(max, 1) * 4, s);
    String allowed = good.isEmpty() ? "none"
        : good.stream().map(n -> n * s.procsPerNode() + " (" + n + " node" + (n == 1 ? "" : "s") + ")")
            .collect(Collectors.joining(", "));
    throw new SpecException("train.globalBatch", "global batch " + s.globalBatch() + " with micro-batch size "
        + s.microBatchSize() + " and tp × pp = " + s.tp() * s.pp() + " cannot be kept at " + bad + " node(s) of "
        + s.procsPerNode() + " process(es) each (--nnodes " + min + ":" + max + "); world sizes that keep it: " + allowed
        + ". Narrow --nnodes to those, or change train.globalBatch / parallel.microBatches");
  }
}
