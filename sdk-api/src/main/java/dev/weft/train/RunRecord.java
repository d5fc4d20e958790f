package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.data.Batches;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.ProcessMemory;
import dev.weft.metrics.StepMetrics;
import dev.weft.spec.TrainSpec;
import dev.weft.util.Median;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a rank records of its steps: each step's metrics to its listener and (rank 0) metrics.jsonl and the console,
 * the held-out loss when it is due, and the attempt's losses, step times and skipped steps for the summary.
 */
final class RunRecord implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RunRecord.class);

  private final TrainSpec t;
  private final Distributed dist;
  private final Path runDir;
  private final long resumedAt;
  private final MetricsJson out; // rank 0's, else null
  private final StepListener listener;
  private final ValidationLoss validation; // null without held-out data
  private final long tokensPerStep;
  private final double flopsPerToken;
  private final List<Double> losses = new ArrayList<>();
  private final List<Double> stepMs = new ArrayList<>();
  private final List<Long> recorded = new ArrayList<>(); // the step of each loss and time, so a rollback can drop later ones
  private Map<String, Double> afterRollback = Map.of(); // recorded with the next step's line
  private long skipped;

  RunRecord(TrainSpec t, Distributed dist, Path runDir, long resumedAt, MetricsJson out, StepListener listener,
            ValidationLoss validation, long tokensPerStep, double flopsPerToken) {
    this.t = t;
    this.dist = dist;
    this.runDir = runDir;
    this.resumedAt = resumedAt;
    this.out = out;
    this.listener = listener;
    this.validation = validation;
    this.tokensPerStep = tokensPerStep;
    this.flopsPerToken = flopsPerToken;
  }

  /** Counts a step whose update was left out (a diverging step stops the run; it is no skip). */
  void countSkip(long step, StepOutcome o) {
    if (!o.skipped() || o.gradCause() != null) return;
    skipped++;
    if (o.noTargets() && dist.rank() == 0) {
      log.warn("step {}: no token of the global batch is a target (all are {}); the step is skipped", step, Batches.IGNORE);
    }
  }

  /**
   * Records a step that ran for {@code ms}, {@code idleMs} after the last one ended: its metrics everywhere they go,
   * and the held-out loss when it is due, which it returns (else null).
   */
  Double step(long step, StepOutcome o, double ms, double idleMs) {
    losses.add(o.loss());
    stepMs.add(ms);
    recorded.add(step);
    double tps = tokensPerStep / (ms / 1000);
    double commMs = o.commNs() / 1e6;
    StepMetrics sm = new StepMetrics(step, o.loss(), o.lr(), o.gradNorm(), tokensPerStep, ms, tps, tps * flopsPerToken,
        ms - commMs, commMs, idleMs, dist.mesh().worldSize(), ProcessMemory.peakRssBytes(), o.stepScale(), o.skipped(),
        o.zeroComm());
    listener.onRankStep(dist.rank(), sm, t.steps());
    dist.backend().deviceMemory(dist.device()).ifPresent(m -> {
      listener.onDeviceMemory(dist.rank(), m);
      if (out != null) out.deviceMemory(m); // recorded with this step's line
    });
    boolean evalDue = validation != null && validation.due(step, t.steps(), t.evalEvery());
    Double evalLoss = evalDue ? validation.run() : null;
    Map<String, Double> objective = evalDue ? validation.withMetrics(o.objective()) : o.objective(); // DPO, GRPO: held-out rewards
    if (!afterRollback.isEmpty()) {
      Map<String, Double> with = new java.util.LinkedHashMap<>(objective);
      with.putAll(afterRollback);
      objective = with;
      afterRollback = Map.of();
    }
    if (out != null) {
      out.step(sm, evalLoss, objective);
      listener.onStep(sm, t.steps());
      consoleExtras(step, evalLoss, objective);
    }
    return evalLoss;
  }

  /**
   * What the step line does not carry, on the console as {@code name=value} (Katib reads them too): the held-out loss
   * when it was computed, and DPO's rewards at the step line's cadence (the first, every logEvery-th and the last step).
   */
  private void consoleExtras(long step, Double evalLoss, Map<String, Double> objective) {
    if (evalLoss != null) log.info(String.format(Locale.ROOT, "step %d/%d  eval_loss=%.6f", step, t.steps(), evalLoss));
    if (!objective.containsKey("rewards_accuracy") || (step != 1 && step != t.steps() && step % t.logEvery() != 0)) return;
    log.info(String.format(Locale.ROOT, "step %d/%d  rewards_accuracy=%.4f rewards_margin=%.6f rewards_chosen=%.6f rewards_rejected=%.6f",
        step, t.steps(), objective.get("rewards_accuracy"), objective.get("rewards_margin"), objective.get("rewards_chosen"),
        objective.get("rewards_rejected")));
  }

  /**
   * The loss-spike guard rolled the run back from {@code spikeStep} to checkpoint {@code back} ({@code where}): what was
   * recorded of the abandoned steps is dropped (metrics.jsonl too, so every step appears once), the console says so, and
   * the next step's line carries {@code rolled_back_from} (the spike's step) and {@code data_skip} (steps of data passed over).
   */
  void rolledBack(long spikeStep, long back, String spike, String where, long dataSkip) {
    while (!recorded.isEmpty() && recorded.get(recorded.size() - 1) > back) {
      int last = recorded.size() - 1;
      recorded.remove(last);
      losses.remove(last);
      stepMs.remove(last);
    }
    afterRollback = Map.of("rolled_back_from", (double) spikeStep, "data_skip", (double) dataSkip);
    if (out == null) return;
    out.rewind(back);
    log.warn("step {}: {}; rolled back to {} (step {}): training goes on with step {} on the data of step {}, the data of"
        + " steps {}..{} passed over (train.lossSpike.action=rollback)", spikeStep, spike, where, back, back + 1,
        back + 1 + dataSkip, back + 1 + dataSkip - (spikeStep - back), back + dataSkip);
  }

  List<Double> losses() { return losses; }

  long skipped() { return skipped; }

  /** The median step time of this attempt in ms (0 before any step). */
  double medianStepMs() { return stepMs.isEmpty() ? 0 : Median.of(stepMs); }

  /** The last step's loss (NaN: every step was without targets). */
  double lastLoss() { return losses.isEmpty() ? Double.NaN : losses.get(losses.size() - 1); }

  /**
   * The whole run's step-1 loss, not this attempt's: read from the metrics of earlier attempts when {@code readRecord};
   * where step 1 is not in this run's record (resumed from another run's checkpoint), this attempt's first.
   */
  double initialLoss(boolean readRecord) {
    double attemptFirst = losses.isEmpty() ? Double.NaN : losses.get(0);
    return resumedAt == 0 || !readRecord ? attemptFirst : MetricsJson.lossAt(runDir, 1).orElse(attemptFirst);
  }

  @Override
  public void close() {
    if (out != null) out.close();
  }
}
