package dev.weft.train;

import dev.weft.parallel.context.ContextSplit;
import dev.weft.parallel.context.Zigzag;
import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.data.Batches;
import dev.weft.data.DataSources;
import dev.weft.data.TokenSource;
import dev.weft.data.WholeSet;
import dev.weft.models.LanguageModel;
import dev.weft.models.Targets;
import dev.weft.precision.Autocast;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mean loss over the targets of the same held-out samples each time, without gradients: every sample of
 * {@code data.eval} (its own source; {@code 4 × train.globalBatch} when that source has no end), or
 * {@code 4 × train.globalBatch} of the {@code data.validation} split. Each data-parallel group evaluates its share in
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
  private DpoEval dpo; // DPO: held-out pairs instead of held-out tokens
  private GrpoEval grpo; // GRPO: held-out prompts completed and scored instead of held-out tokens

  private ValidationLoss(TokenSource source, LanguageModel model, Distributed dist, TrainingSpec spec) {
    this(source, model, dist, spec, false);
  }

  private ValidationLoss(TokenSource source, LanguageModel model, Distributed dist, TrainingSpec spec, boolean pairs) {
    this.model = model;
    this.dist = dist;
    this.seqLen = spec.data().seqLen();
    int dp = spec.parallel().dp();
    this.batch = spec.train().globalBatch() / dp / spec.parallel().microBatches();
    WholeSet whole = spec.data().eval().isBlank() ? null : WholeSet.of(source);
    this.source = whole == null ? source : whole;
    // a whole set: each rank the same number of full micro-batches, the samples past its end without targets
    this.perRank = whole == null ? 4L * spec.train().globalBatch() / dp : ceil(ceil(whole.size(), dp), batch) * batch;
    this.dtype = spec.precision().dtype();
    if (dist.rank() == 0 && !pairs) log.info("eval: {} held-out samples each time from {}", perRank * dp, this.source.describe());
  }

  /** GRPO's: no held-out tokens, only the prompts {@link GrpoEval} reads. */
  private ValidationLoss(LanguageModel model, Distributed dist, TrainingSpec spec, GrpoEval grpo) {
    this.source = null;
    this.model = model;
    this.dist = dist;
    this.seqLen = spec.data().seqLen();
    this.batch = 0;
    this.perRank = 0;
    this.dtype = spec.precision().dtype();
    this.grpo = grpo;
  }

  private static long ceil(long n, long d) { return (n + d - 1) / d; }

  /**
   * Null when the spec asks for no evaluation. DPO's ({@code passes} a {@link DpoMicroBatches}) is on held-out pairs,
   * GRPO's on held-out prompts.
   */
  static ValidationLoss open(TrainingSpec spec, LanguageModel model, Distributed dist, MicroBatches passes) {
    if (spec.train().evalEvery() <= 0) return null;
    if (passes instanceof GrpoMicroBatches g) return new ValidationLoss(model, dist, spec, new GrpoEval(spec.data().eval(), g, dist));
    TokenSource held = heldOut(spec);
    if (!(passes instanceof DpoMicroBatches d)) return new ValidationLoss(held, model, dist, spec);
    ValidationLoss v = new ValidationLoss(held, model, dist, spec, true);
    v.dpo = new DpoEval(held, d, dist, spec.data().seqLen());
    return v;
  }

  /** {@code objective}'s figures and the last evaluation's own (DPO: the held-out pairs' rewards; GRPO: the held-out prompts'). */
  Map<String, Double> withMetrics(Map<String, Double> objective) {
    if (dpo == null && grpo == null) return objective;
    Map<String, Double> all = new LinkedHashMap<>(objective);
    all.putAll(dpo != null ? dpo.metrics() : grpo.metrics());
    return all;
  }

  /** The held-out samples: {@code data.eval}'s own source, or the {@code data.validation} split of the training data. */
  static TokenSource heldOut(TrainingSpec spec) {
    var d = spec.data();
    long seed = spec.train().seed();
    return d.eval().isBlank() ? DataSources.open(d, seed).validation() : DataSources.open(d.evalData(), seed).train();
  }

  /**
   * Every {@code every} steps and at the last; GRPO's held-out accuracy also after the first step, so that the run's own
   * curve (metrics.jsonl, the report's reward chart) starts next to the policy it began from, not {@code every} updates in.
   */
  boolean due(long step, long lastStep, int every) { return step % every == 0 || step == lastStep || (grpo != null && step == 1); }

  /** The validation loss, or null: GRPO has none, and a warning says so when no held-out token is a target. */
  Double run() {
    if (dpo != null) return dpo.run();
    if (grpo != null) {
      grpo.run();
      return null;
    }
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
