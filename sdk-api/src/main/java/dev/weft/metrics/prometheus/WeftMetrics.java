package dev.weft.metrics.prometheus;

import dev.weft.metrics.DeviceMemory;
import dev.weft.metrics.ProcessMemory;
import dev.weft.metrics.StepMetrics;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.StepListener;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import java.time.Duration;

/**
 * The {@code weft_*} metrics of one worker, in a Prometheus registry of its own (served by
 * {@link MetricsEndpoint}). Every metric carries the labels {@code run} and {@code rank}.
 *
 * <p>The training loop feeds it through {@link #listener(StepListener)} (loss, LR, grad norm,
 * throughput, time split, peak RSS, world size, loss scale and skipped steps come with each step;
 * the bytes held per rank, ZeRO shards counted as they are, once the optimizer exists; each checkpoint
 * save's stall; a MoE model's per-expert load). Restarts come from the elastic agent ({@code WEFT_RESTARTS}); 0 without one.
 * MFU is NaN until the peak FLOP/s of one rank is known ({@link #setPeakFlopsPerRank}, or the
 * environment variable {@code WEFT_PEAK_FLOPS}).
 */
public final class WeftMetrics {
  public static final String PEAK_FLOPS_ENV = dev.weft.metrics.Mfu.PEAK_FLOPS_ENV;

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final String optimizer;
  private final Gauge step, totalSteps, loss, lr, gradNorm, tokensPerS, modelFlops, mfu, lastStep, memory, deviceMemory, peakRss,
      lossScale, restarts, worldSize, expertLoad;
  private final Info info;
  private final Counter steps, tokens, time, skipped;
  private final Histogram checkpointSave;
  private volatile double peakFlopsPerRank = Double.NaN;

  public WeftMetrics(String run, int rank, String optimizer) {
    this.optimizer = optimizer;
    Labels constant = Labels.of("run", run, "rank", String.valueOf(rank));
    step = gauge("weft_step", "Last completed optimizer step.", constant);
    totalSteps = gauge("weft_total_steps", "Optimizer steps the run will take.", constant);
    loss = gauge("weft_loss", "Training loss of the last step (mean over data-parallel ranks).", constant);
    lr = gauge("weft_learning_rate", "Learning rate of the last step.", constant);
    gradNorm = gauge("weft_grad_norm", "Global gradient norm of the last step, before clipping.", constant);
    tokensPerS = gauge("weft_tokens_per_second", "Tokens per second of the last step (whole job).", constant);
    modelFlops = gauge("weft_model_flops_per_second", "Model FLOP/s of the last step (whole job, 6N per token + attention).", constant);
    mfu = gauge("weft_mfu", "Model FLOPs utilisation: model FLOP/s / (peak FLOP/s per rank × world size); NaN while the peak is unknown.", constant);
    lastStep = Gauge.builder().name("weft_last_step_seconds").help("Time of the last step by phase: compute, communication (waited for), idle (between steps).")
        .labelNames("phase").constLabels(constant).register(registry);
    time = Counter.builder().name("weft_step_time_seconds").help("Cumulative step time by phase: compute, communication, idle.")
        .labelNames("phase").constLabels(constant).register(registry);
    memory = Gauge.builder().name("weft_memory_bytes").help("Training state held by this rank: parameters, gradients, optimizer_state.")
        .labelNames("kind").constLabels(constant).register(registry);
    deviceMemory = Gauge.builder().name("weft_device_memory_bytes")
        .help("CUDA caching allocator of this rank's device: allocated, reserved, peak_allocated (absent on CPU).")
        .labelNames("kind").constLabels(constant).register(registry);
    expertLoad = Gauge.builder().name("weft_expert_load")
        .help("Mixture of experts: token-expert assignments of the last step per expert, over MoE layers, micro-batches and dp ranks (absent for a dense model).")
        .labelNames("expert").constLabels(constant).register(registry);
    peakRss = gauge("weft_peak_rss_bytes", "Peak resident memory of this worker process.", constant);
    lossScale = gauge("weft_loss_scale", "Current loss scale (1 when loss scaling is off).", constant);
    restarts = gauge("weft_restarts", "Restarts of this job so far.", constant);
    worldSize = gauge("weft_world_size", "Ranks in the job now.", constant);
    info = Info.builder().name("weft_run").help("The run this worker belongs to (labels only).").labelNames("optimizer")
        .constLabels(constant).register(registry);
    steps = counter("weft_steps", "Optimizer steps completed.", constant);
    tokens = counter("weft_tokens", "Tokens trained on (whole job).", constant);
    skipped = counter("weft_skipped_steps", "Steps skipped because of gradient overflow (fp16 loss scaling).", constant);
    checkpointSave = Histogram.builder().name("weft_checkpoint_save_seconds").help("Time to save a checkpoint, as this rank saw it.")
        .classicOnly().classicUpperBounds(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300).constLabels(constant).register(registry);

    for (String phase : new String[] {"compute", "communication", "idle"}) {
      lastStep.labelValues(phase).set(0);
      time.labelValues(phase).inc(0);
    }
    info.setLabelValues(optimizer);
    lossScale.set(1);
    restarts.set(0);
    worldSize.set(1);
    mfu.set(Double.NaN);
    setMemory(0, 0, 0);
    String peak = System.getenv(PEAK_FLOPS_ENV);
    if (peak != null && !peak.isBlank()) setPeakFlopsPerRank(Double.parseDouble(peak.trim()));
  }

  public static WeftMetrics forRank(TrainingSpec spec, int rank) {
    return new WeftMetrics(spec.name(), rank, spec.train().optimizer());
  }

  private Gauge gauge(String name, String help, Labels constant) {
    return Gauge.builder().name(name).help(help).constLabels(constant).register(registry);
  }

  private Counter counter(String name, String help, Labels constant) {
    return Counter.builder().name(name).help(help).constLabels(constant).register(registry);
  }

  /** The registry to serve or to add more collectors to (JVM metrics join it in {@link MetricsEndpoint}). */
  public PrometheusRegistry registry() { return registry; }

  /** One finished step. */
  public void onStep(StepMetrics m, long total) {
    step.set(m.step());
    totalSteps.set(total);
    loss.set(m.loss());
    lr.set(m.lr());
    gradNorm.set(m.gradNorm());
    tokensPerS.set(m.tokensPerS());
    modelFlops.set(m.modelFlopsPerS());
    mfu.set(dev.weft.metrics.Mfu.of(m.modelFlopsPerS(), peakFlopsPerRank, m.worldSize()));
    phase("compute", m.computeMs());
    phase("communication", m.commMs());
    phase("idle", m.idleMs());
    steps.inc();
    tokens.inc(m.tokens());
    worldSize.set(m.worldSize());
    if (m.lossScale() > 0) lossScale.set(m.lossScale());
    if (m.skipped()) skipped.inc();
    long rss = m.peakRssBytes() > 0 ? m.peakRssBytes() : ProcessMemory.peakRssBytes();
    peakRss.set(rss);
  }

  private void phase(String name, double ms) {
    double s = Math.max(0, ms) / 1000;
    lastStep.labelValues(name).set(s);
    time.labelValues(name).inc(s);
  }

  /** Bytes of training state this rank holds. */
  public void setMemory(long parameterBytes, long gradientBytes, long optimizerStateBytes) {
    memory.labelValues("parameters").set(parameterBytes);
    memory.labelValues("gradients").set(gradientBytes);
    memory.labelValues("optimizer_state").set(optimizerStateBytes);
  }

  /** The device's allocator figures (CUDA runs only: CPU runs never set them, so the series stay absent). */
  public void setDeviceMemory(DeviceMemory m) {
    deviceMemory.labelValues("allocated").set(m.allocated());
    deviceMemory.labelValues("reserved").set(m.reserved());
    deviceMemory.labelValues("peak_allocated").set(m.peakAllocated());
  }

  /** A MoE step's assignments per expert (the series appear with the first MoE step). */
  public void setExpertLoad(double[] load) {
    for (int e = 0; e < load.length; e++) expertLoad.labelValues(String.valueOf(e)).set(load[e]);
  }

  public void setLossScale(double scale) { lossScale.set(scale); }

  public void recordSkippedStep() { skipped.inc(); }

  public void recordCheckpointSave(Duration d) { checkpointSave.observe(d.toNanos() / 1e9); }

  public void setRestarts(int n) { restarts.set(n); }

  public void setWorldSize(int n) { worldSize.set(n); }

  /** Peak dense FLOP/s of one rank's device; MFU is reported from then on. */
  public void setPeakFlopsPerRank(double flops) { peakFlopsPerRank = flops > 0 ? flops : Double.NaN; }

  /**
   * A listener that feeds these metrics on this rank and passes rank-0 calls on to {@code next}
   * (for example the console progress).
   */
  public StepListener listener(StepListener next) {
    return new StepListener() {
      @Override
      public void onStep(StepMetrics m, long totalSteps) { next.onStep(m, totalSteps); }

      @Override
      public void onRankStart(int rank, long localParameters) { next.onRankStart(rank, localParameters); }

      @Override
      public void onRankStep(int rank, StepMetrics m, long totalSteps) {
        WeftMetrics.this.onStep(m, totalSteps);
        next.onRankStep(rank, m, totalSteps);
      }

      @Override
      public void onMemory(int rank, long parameterBytes, long gradientBytes, long optimizerBytes) {
        setMemory(parameterBytes, gradientBytes, optimizerBytes);
        next.onMemory(rank, parameterBytes, gradientBytes, optimizerBytes);
      }

      @Override
      public void onDeviceMemory(int rank, DeviceMemory m) {
        setDeviceMemory(m);
        next.onDeviceMemory(rank, m);
      }

      @Override
      public void onExpertLoad(int rank, double[] load) {
        setExpertLoad(load);
        next.onExpertLoad(rank, load);
      }

      @Override
      public void onCheckpointSaved(int rank, long step, Duration took) {
        recordCheckpointSave(took);
        next.onCheckpointSaved(rank, step, took);
      }
    };
  }
}
