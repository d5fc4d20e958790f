package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.data.Batches;
import dev.weft.data.TokenSource;
import dev.weft.parallel.context.ContextSplit;
import dev.weft.parallel.context.Zigzag;
import dev.weft.util.Tensors;
import java.util.Locale;
import java.util.Map;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DPO on held-out pairs ({@code data.eval: preference:DIR}), without gradients: every pair once, one pair per pass,
 * data-parallel ranks taking pairs in turn (every rank the same number of passes, so ZeRO-3's gathers stay in step;
 * a rank past the last pair repeats pair 0 and does not count it). The mean DPO loss is {@code eval_loss}; the rewards
 * are TRL's {@code eval_rewards_*}, as the training step's rewards but over the held-out pairs.
 */
final class DpoEval {
  private static final Logger log = LoggerFactory.getLogger(DpoEval.class);
  private final TokenSource pairs; // sample 2k: pair k's chosen answer, 2k + 1: its rejected one
  private final long count;
  private final DpoMicroBatches passes;
  private final Distributed dist;
  private final int seqLen;
  private Map<String, Double> last = Map.of();

  DpoEval(TokenSource pairs, DpoMicroBatches passes, Distributed dist, int seqLen) {
    this.pairs = pairs;
    this.count = pairs.distinctSamples() / 2;
    this.passes = passes;
    this.dist = dist;
    this.seqLen = seqLen;
    if (dist.rank() == 0) log.info("eval: {} held-out pairs each time from {}", count, pairs.describe());
  }

  /** The mean DPO loss over the held-out pairs; {@link #metrics()} then holds their rewards. */
  Double run() {
    double[] sums = new double[5]; // loss, chosen rewards, rejected rewards, correctly ordered pairs, pairs
    int dp = dist.dp().size(), rank = dist.coord().dp();
    try (PointerScope scope = new PointerScope(); NoGradGuard ng = new NoGradGuard()) {
      for (long slot = 0; slot * dp < count; slot++) {
        long p = slot * dp + rank;
        boolean real = p < count;
        Batches.Batch host = Batches.make(pairs, 2 * (real ? p : 0), 2, seqLen);
        DpoLoss l = passes.loss(StepData.place(ContextSplit.of(host, new Zigzag(dist.cp().size(), dist.cp().rank())), dist.device()));
        if (!real) continue;
        sums[0] += l.lossSum().item_double();
        sums[1] += l.chosenRewards().sum().item_double();
        sums[2] += l.rejectedRewards().sum().item_double();
        sums[3] += l.chosenRewards().gt(l.rejectedRewards()).sum().item_double();
        sums[4] += l.pairs();
      }
    }
    Tensor t = Tensors.ofDoubles(sums);
    if (dp > 1) dist.dp().allReduce(t, ReduceOp.SUM);
    double[] s = Tensors.toDoubles(t);
    Map<String, Double> m = DpoMicroBatches.rewards(java.util.Arrays.copyOfRange(s, 1, 5), "eval_");
    last = m;
    if (dist.rank() == 0) {
      log.info(String.format(Locale.ROOT, "eval_rewards_accuracy=%.4f eval_rewards_margin=%.6f eval_rewards_chosen=%.6f eval_rewards_rejected=%.6f",
          m.get("eval_rewards_accuracy"), m.get("eval_rewards_margin"), m.get("eval_rewards_chosen"), m.get("eval_rewards_rejected")));
    }
    return s[0] / s[4];
  }

  /** The last evaluation's rewards over the held-out pairs. */
  Map<String, Double> metrics() { return last; }
}
