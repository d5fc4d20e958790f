package dev.weft.tracking.progress;

import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.StepMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Rank 0's TrainJob progress, fed the steps {@code metrics.jsonl} records: the percentage of {@code train.steps}
 * done, the seconds left at the mean pace of the steps seen so far, and the metrics {@code loss}, {@code eval_loss}
 * (the latest evaluation), {@code learning_rate}, {@code grad_norm}, {@code tokens_per_s}, {@code current_step} and
 * {@code total_steps}. Handing a step over costs the training thread one lock; the network is the
 * {@link ProgressReporter}'s.
 */
public final class ProgressSink implements MetricsJson.Sink {
  /** Upstream's client rule: at most one report per 5 s (kubeflow/trainer docs/user-guides/trainjob-progress.md). */
  static final Duration INTERVAL = Duration.ofSeconds(5);
  static final Duration MAX_BACKOFF = Duration.ofMinutes(2);
  static final Duration DEADLINE = Duration.ofSeconds(10);
  static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private final ProgressReporter reporter;
  private final long totalSteps;
  private long firstStep = -1, firstNanos;
  private Double evalLoss;
  private TrainerStatus latest;

  ProgressSink(ProgressReporter reporter, long totalSteps) {
    this.reporter = reporter;
    this.totalSteps = totalSteps;
  }

  /** The sink for the endpoint {@code env} names, or empty where the Trainer injected none (then nothing is sent). */
  public static Optional<MetricsJson.Sink> open(long totalSteps, Map<String, String> env) {
    return ProgressEndpoint.fromEnv(env).map(e -> new ProgressSink(new ProgressReporter(new ProgressClient(e, DEADLINE),
        e.url().getHost(), INTERVAL, MAX_BACKOFF, CLOSE_WAIT), totalSteps));
  }

  @Override
  public void step(StepMetrics m, Double eval) {
    long now = System.nanoTime();
    if (firstStep < 0) {
      // the pace is measured from the end of the first step seen (a resumed run starts past 1)
      firstStep = m.step() - 1;
      firstNanos = now - (long) (m.stepMs() * 1e6);
    }
    if (eval != null) evalLoss = eval;
    long done = m.step() - firstStep;
    double secondsPerStep = (now - firstNanos) / 1e9 / Math.max(1, done);
    long left = Math.max(0, totalSteps - m.step());
    latest = new TrainerStatus(percent(m.step(), totalSteps), (int) Math.min(Integer.MAX_VALUE, Math.round(secondsPerStep * left)),
        metrics(m), Instant.now());
    reporter.offer(latest);
  }

  static int percent(long step, long total) {
    return total <= 0 ? 0 : (int) Math.max(0, Math.min(100, step * 100 / total));
  }

  private List<TrainerStatus.Metric> metrics(StepMetrics m) {
    List<TrainerStatus.Metric> out = new ArrayList<>();
    add(out, "loss", m.loss());
    if (evalLoss != null) add(out, "eval_loss", evalLoss);
    add(out, "learning_rate", m.lr());
    add(out, "grad_norm", m.gradNorm());
    add(out, "tokens_per_s", m.tokensPerS());
    out.add(new TrainerStatus.Metric("current_step", Long.toString(m.step())));
    out.add(new TrainerStatus.Metric("total_steps", Long.toString(totalSteps)));
    return out;
  }

  private static void add(List<TrainerStatus.Metric> out, String name, double v) {
    if (Double.isFinite(v)) out.add(new TrainerStatus.Metric(name, String.format(java.util.Locale.ROOT, "%.6g", v)));
  }

  /** Sends the last step's report (a run cut short keeps its real percentage), waiting a bounded time. */
  @Override
  public void close() { reporter.close(latest); }
}
