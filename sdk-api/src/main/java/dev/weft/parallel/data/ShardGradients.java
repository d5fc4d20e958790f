package dev.weft.parallel.data;

import static org.bytedeco.pytorch.global.torch.zeros;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters.Param;
import dev.weft.parallel.data.FlatLayout.Slot;
import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** What {@link ShardedOptimizer} computes over the owned gradient shards of every bucket: the tp sum and the global norm. */
final class ShardGradients {
  private ShardGradients() {}

  /**
   * Sums over the tensor-parallel group the gradients of {@code partial} (replicated parameters that
   * each tp rank saw only for its slice of the sequence). Every tp rank has the same bucket layout,
   * so the owned ranges line up.
   */
  static void sumOverTp(List<BucketState> states, List<Param> params, Communicator tp, List<Param> partial) {
    if (partial.isEmpty() || tp.size() == 1) return;
    Set<String> names = new HashSet<>();
    for (Param p : partial) names.add(p.name());
    boolean any = sumOwned(states, params, names, flat -> tp.allReduce(flat, ReduceOp.SUM));
    if (!any) tp.allReduce(zeros(1), ReduceOp.SUM); // keep the collective sequence equal on every tp rank
  }

  /**
   * Hands the owned gradient elements of the parameters {@code names}, concatenated in bucket order, to
   * {@code sum} (which replaces them in place by their sum with other ranks' same elements) and writes
   * the result back. Returns false, without calling {@code sum}, when this rank owns none of them.
   */
  static boolean sumOwned(List<BucketState> states, List<Param> params, Set<String> names, Consumer<Tensor> sum) {
    try (NoGradGuard ng = new NoGradGuard()) {
      TensorVector pieces = new TensorVector();
      List<Tensor> targets = new ArrayList<>();
      for (BucketState s : states) {
        Tensor owned = s.ownedGrads();
        for (Slot slot : s.b.slots()) {
          if (!names.contains(params.get(slot.param()).name())) continue;
          Tensor t = s.ownedPart(slot, owned);
          if (t == null) continue;
          targets.add(t);
          pieces.push_back(t);
        }
      }
      if (targets.isEmpty()) return false;
      Tensor flat = torch.cat(pieces);
      sum.accept(flat);
      long off = 0;
      for (Tensor t : targets) {
        t.copy_(flat.narrow(0, off, t.numel()));
        off += t.numel();
      }
      return true;
    }
  }

  /**
   * Global gradient norm (of the true gradients: divided by {@code lossScale}) over every shard of
   * every rank. Tensor-parallel split elements are summed over the tp group, replicated ones are
   * counted once; {@code pp} (null for none) holds the other stages' parameters, {@code experts}' ep group the other
   * experts. Non-finite when any
   * rank overflowed; every rank sees the same value.
   */
  static double norm(List<BucketState> states, int stage, Communicator dp, Communicator tp, Communicator pp, double lossScale,
                     ExpertGroups experts) {
    try (NoGradGuard ng = new NoGradGuard()) {
      Tensor sums = squares(states.stream().filter(s -> s.across.size() == 1).toList());
      if (stage >= 1) dp.allReduce(sums, ReduceOp.SUM);
      if (experts.any()) { // an expert's shards over its edp group, then the other experts over ep
        Tensor mine = squares(states.stream().filter(s -> s.across.size() > 1).toList());
        if (stage >= 1) experts.edp().allReduce(mine, ReduceOp.SUM);
        experts.ep().allReduce(mine, ReduceOp.SUM);
        sums = sums.add(mine);
      }
      Tensor splitT = sums.narrow(0, 0, 1).clone();
      tp.allReduce(splitT, ReduceOp.SUM);
      Tensor both = Tensors.ofDoubles(splitT.item_double(), sums.narrow(0, 1, 1).item_double());
      if (pp != null) pp.allReduce(both, ReduceOp.SUM);
      double total = both.sum().item_double();
      return Math.sqrt(total) / lossScale;
    }
  }

  /** This rank's squared owned gradient elements of {@code states}: [tp-split, whole] as doubles. */
  private static Tensor squares(List<BucketState> states) {
    // one float32 dot product per run of same-kind slots, summed in double once: no read-back per parameter
    TensorVector split = new TensorVector(), whole = new TensorVector();
    for (BucketState s : states) {
      Tensor owned = s.ownedGrads();
      int i = 0, n = s.b.slots().size();
      while (i < n) {
        boolean kind = s.tpSharded[i];
        long lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
        for (; i < n && s.tpSharded[i] == kind; i++) {
          Slot slot = s.b.slots().get(i);
          lo = Math.min(lo, s.ownedLo(slot));
          hi = Math.max(hi, s.ownedHi(slot));
        }
        if (hi <= lo) continue;
        Tensor run = owned.narrow(0, lo - s.shardStart, hi - lo);
        (kind ? split : whole).push_back(run.dot(run).reshape(1));
      }
    }
    return Tensors.ofDoubles(sumOf(split), sumOf(whole));
  }

  private static double sumOf(TensorVector parts) {
    return parts.size() == 0 ? 0 : torch.cat(parts).to(ScalarType.Double).sum().item_double();
  }
}
