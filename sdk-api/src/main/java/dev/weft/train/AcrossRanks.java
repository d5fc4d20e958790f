package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.models.LanguageModel;
import dev.weft.models.Parameters.Param;
import dev.weft.util.Tensors;
import org.bytedeco.pytorch.Tensor;

/** What the ranks of a run work out together before and after training: the step they start from, the model's size. */
final class AcrossRanks {
  private AcrossRanks() {}

  /** Every rank must continue from the same step; a rank that found another checkpoint (or none) would hang the first collective. */
  static void requireSameStart(long resumedAt, Distributed dist) {
    Tensor hi = Tensors.ofLongs(resumedAt), lo = Tensors.ofLongs(-resumedAt);
    dist.world().allReduce(hi, ReduceOp.MAX);
    dist.world().allReduce(lo, ReduceOp.MAX);
    long max = Tensors.toLongs(hi)[0], min = -Tensors.toLongs(lo)[0];
    if (max != min) {
      throw new dev.weft.spec.SpecException("checkpoint.dir", "the ranks start from different steps (" + min + " to " + max
          + "): they do not see the same checkpoints; point checkpoint.dir at storage every node shares");
    }
  }


  /** The model's parameters over every stage, tp shard and ep rank (each holding its share of the experts), each tied copy counted once. */
  static long globalParameterCount(LanguageModel model, Distributed dist, dev.weft.comm.Communicator ep) {
    java.util.Set<String> experts = model.layers() instanceof dev.weft.parallel.expert.ExpertParallelLayers e
        ? e.expertParameters() : java.util.Set.of();
    long sharded = 0, whole = 0;
    for (Param p : model.parameters().list()) {
      if (model.parameters().isTiedCopy(p.name())) continue; // counted on the stage holding the original
      long times = experts.contains(p.name()) ? ep.size() : 1; // every ep rank holds as many experts
      if (p.isSharded()) sharded += times * p.globalNumel() / p.shardCount();
      else whole += times * p.globalNumel();
    }
    Tensor n = Tensors.ofLongs(sharded);
    dist.tp().allReduce(n, ReduceOp.SUM);
    Tensor stageTotal = Tensors.ofLongs(Tensors.toLongs(n)[0] + whole);
    dist.pp().allReduce(stageTotal, ReduceOp.SUM);
    return Tensors.toLongs(stageTotal)[0];
  }
}
