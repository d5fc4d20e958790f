package dev.weft.train;

import dev.weft.parallel.context.ContextSplit;
import dev.weft.parallel.context.Zigzag;
import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.data.Batches;
import dev.weft.data.DataSources;
import dev.weft.data.TokenSource;
import dev.weft.models.LanguageModel;
import dev.weft.models.Targets;
import dev.weft.precision.Autocast;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mean loss over the targets of the same held-out samples each time ({@code 4 × train.globalBatch} of the
 * validation split), without gradients. Each data-parallel group evaluates its share in
 * micro-batches (every rank the same number, so ZeRO-3's gathers stay in step); tensor-parallel
 * ranks evaluate together. The summed losses and the counts of targets are reduced over data parallelism, then divided.
 */
final class ValidationLoss {
  private static final Logger log = LoggerFactory.getLogger(ValidationLoss.class);
  private final TokenSource source;
  private final LanguageModel model;
  private final Distributed dist;
  private final int seqLen;
  private final int batch;
  private final long perRank;
  private final String dtype;

  private ValidationLoss(TokenSource source, LanguageModel model, Distributed dist, TrainingSpec spec) {
    this.source = source;
    this.model = model;
    this.dist = dist;
    this.seqLen = spec.data().seqLen();
    int dp = spec.parallel().dp();
    this.batch = spec.train().globalBatch() / dp / spec.parallel().microBatches();
    this.perRank = 4L * spec.train().globalBatch() / dp;
    this.dtype = spec.precision().dtype();
  }

  /** Null when the spec asks for no evaluation. */
  static ValidationLoss open(TrainingSpec spec, LanguageModel model, Distributed dist) {
    if (spec.train().evalEvery() <= 0) return null;
    return new ValidationLoss(DataSources.open(spec.data(), spec.train().seed()).validation(), model, dist, spec);
  }

  boolean due(long step, long lastStep, int every) { return step % every == 0 || step == lastStep; }

  /** The validation loss, or null (with a warning) when no held-out token is a target. */
  Double run() {
    double[] sums = new double[2];
    try (PointerScope scope = new PointerScope(); NoGradGuard ng = new NoGradGuard()) {
      long first = dist.coord().dp() * perRank;
      for (long i = 0; i < perRank; i += batch) {
        Batches.Batch host = Batches.make(source, first + i, batch, seqLen);
        Batches.Batch b = StepData.place(ContextSplit.of(host, new Zigzag(dist.cp().size(), dist.cp().rank())), dist.device());
        Tensor l;
        try (Autocast ac = Autocast.of(dtype, dist.device().cuda())) {
          l = model.lossSum(b.tokens(), b.targets(), b.documents());
        }
        sums[0] += l.item_double();
        sums[1] += Targets.count(host.targets());
      }
      Tensor part = Tensors.ofDoubles(sums[0]);
      if (dist.cp().size() > 1) dist.cp().allReduce(part, ReduceOp.SUM); // a cp rank's loss covers its tokens only
      sums[0] = Tensors.toDoubles(part)[0];
      Tensor t = Tensors.ofDoubles(sums);
      dist.dp().allReduce(t, ReduceOp.SUM);
      double[] total = Tensors.toDoubles(t);
      if (total[1] == 0) {
        if (dist.rank() == 0) log.warn("no token of the validation samples is a target (all are {}); no eval_loss", Batches.IGNORE);
        return null;
      }
      return total[0] / total[1];
    }
  }
}
