package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.data.Batches;
import dev.weft.models.LanguageModel;
import dev.weft.models.lora.LoraLayers;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.parallel.tensor.TpOps;
import dev.weft.precision.Autocast;
import dev.weft.spec.DpoLossKind;
import dev.weft.spec.DpoSpec;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;

/**
 * A DPO step on one rank: each micro-batch's pairs through the reference (no gradient) and the policy, the pairs'
 * summed loss weighted by {@link LossNormalizer#weight} (data-parallel ranks × 1 / the global batch's pairs) before
 * its backward, so the step's loss is the mean over every pair of the global batch in every layout. The rewards of
 * the step are kept for {@link #metrics}.
 */
final class DpoMicroBatches implements MicroBatches {
  private final LanguageModel model;
  private final ReferencePolicy reference;
  private final ShardedOptimizer opt;
  private final String dtype;
  private final boolean cuda;
  private final double beta;
  private final DpoLossKind kind;
  private final double labelSmoothing;
  private final TpOps cp; // context parallelism: a sequence's log-probability is the sum of its cp ranks' parts; null at cp=1
  private final int globalBatch; // rows of the global batch, two per pair
  private final double[] sums = new double[4]; // this step's chosen rewards, rejected rewards, correctly ordered pairs, pairs

  DpoMicroBatches(LanguageModel model, ReferencePolicy reference, ShardedOptimizer opt, String dtype, boolean cuda, DpoSpec dpo,
                  TpOps cp, int globalBatch) {
    this.model = model;
    this.globalBatch = globalBatch;
    this.kind = DpoLossKind.of(dpo.loss());
    this.labelSmoothing = dpo.labelSmoothing();
    this.cp = cp;
    this.reference = reference;
    this.opt = opt;
    this.dtype = dtype;
    this.cuda = cuda;
    this.beta = dpo.beta();
  }

  /**
   * The DPO passes of a run. The reference is the policy as training starts: with LoRA from fresh adapters, the policy
   * with its adapters off; otherwise (no LoRA, a starting {@code train.lora.adapter}, or {@code train.dpo.reference}) a
   * frozen copy of it on this rank's device.
   */
  static DpoMicroBatches of(TrainingSpec spec, BuiltModel built, ShardedOptimizer opt, Distributed dist) {
    ReferencePolicy ref;
    LanguageModel model = built.model();
    LoraLayers lora = built.adapters();
    if (lora != null && !spec.train().lora().hasAdapter() && !spec.train().dpo().hasReference()) {
      ref = ReferencePolicy.adaptersOff(model, lora);
    } else {
      LanguageModel copy = ModelBuilder.frozenCopy(ReferencePolicy.spec(spec), dist.tp(), dist.cp());
      Placement.moveParameters(copy.parameters().list(), dist.device());
      ref = ReferencePolicy.frozen(copy);
    }
    if (model instanceof dev.weft.models.decoder.Decoder d) d.dropRouterLosses();
    return new DpoMicroBatches(model, ref, opt, spec.precision().dtype(), dist.device().cuda(), spec.train().dpo(),
        dist.cp().size() > 1 ? new TpOps(dist.cp()) : null, spec.train().globalBatch());
  }

  /** The normalizer of a DPO step: the global batch's pairs (two rows each), whatever their target counts. */
  static LossNormalizer pairs(int globalBatch, int dp) { return new LossNormalizer(globalBatch / 2, dp); }

  @Override
  public LossNormalizer normalizer(List<Batches.Batch> host, Communicator dp, int cp) { return pairs(globalBatch, dp.size()); }

  @Override
  public double run(List<Batches.Batch> batches, LossNormalizer norm, double lossScale) {
    java.util.Arrays.fill(sums, 0);
    Scalar weight = new Scalar(lossScale * norm.weight());
    double loss = 0;
    for (int m = 0; m < batches.size(); m++) {
      Batches.Batch b = batches.get(m);
      opt.beforeBackward(m, batches.size());
      DpoLoss l = loss(b);
      loss += l.lossSum().item_double();
      sums[0] += l.chosenRewards().sum().item_double();
      sums[1] += l.rejectedRewards().sum().item_double();
      sums[2] += l.chosenRewards().gt(l.rejectedRewards()).sum().item_double();
      sums[3] += l.pairs();
      l.lossSum().mul(weight).backward();
      opt.afterBackward(m, batches.size());
    }
    return norm.reported(loss); // every cp rank holds the whole loss: the step's mean over the ranks is it
  }

  /** The pairs' DPO loss and rewards on {@code b} (whole pairs, placed on the device); with gradients unless a guard is held. */
  DpoLoss loss(Batches.Batch b) {
    try (Autocast ac = Autocast.of(dtype, cuda)) {
      Tensor ref = reference.logProbs(b.tokens(), b.targets(), b.documents());
      Tensor policy = DpoLoss.sequenceLogProbs(model, b.tokens(), b.targets(), b.documents());
      if (cp != null) { // every cp rank then holds the whole loss; its backward reaches only its own tokens (summed over cp after)
        ref = ref.contiguous(); // computed without gradients: summed in place
        cp.communicator().allReduce(ref, ReduceOp.SUM);
        policy = cp.reduceFromTp(policy);
      }
      Tensor counts = null;
      if (kind == DpoLossKind.IPO) {
        counts = DpoLoss.targetCounts(b.targets()).contiguous(); // a cp rank's share of each row's targets: summed
        if (cp != null) cp.communicator().allReduce(counts, ReduceOp.SUM);
      }
      return DpoLoss.of(policy, ref, beta, kind, labelSmoothing, counts);
    }
  }

  /**
   * The last step's rewards over the global batch (one all-reduce over {@code dp}), as TRL names them:
   * {@code rewards_chosen}, {@code rewards_rejected}, {@code rewards_margin} (their difference) and
   * {@code rewards_accuracy} (the share of pairs whose chosen answer has the higher reward), each a mean over pairs.
   */
  @Override
  public Map<String, Double> objectiveMetrics(Communicator dp) {
    Tensor t = Tensors.ofDoubles(sums.clone());
    if (dp.size() > 1) dp.allReduce(t, ReduceOp.SUM);
    return rewards(Tensors.toDoubles(t), "");
  }

  /** TRL's rewards, each name after {@code prefix}, from sums {chosen rewards, rejected rewards, correctly ordered pairs, pairs}. */
  static Map<String, Double> rewards(double[] s, String prefix) {
    Map<String, Double> out = new LinkedHashMap<>();
    out.put(prefix + "rewards_chosen", s[0] / s[3]);
    out.put(prefix + "rewards_rejected", s[1] / s[3]);
    out.put(prefix + "rewards_margin", (s[0] - s[1]) / s[3]);
    out.put(prefix + "rewards_accuracy", s[2] / s[3]);
    return out;
  }
}
