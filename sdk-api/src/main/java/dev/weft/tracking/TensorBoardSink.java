package dev.weft.tracking;

import dev.weft.metrics.DeviceMemory;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.Mfu;
import dev.weft.metrics.StepMetrics;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrackingSpec;
import dev.weft.spec.TrainingSpec;
import dev.weft.checkpoint.CheckpointStorages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rank 0's TensorBoard record of a run, fed the values {@code metrics.jsonl} records: scalars {@code train/loss},
 * {@code eval/loss}, {@code train/lr}, {@code train/grad_norm}, {@code train/loss_scale}, {@code perf/tokens_per_s},
 * {@code perf/step_ms}, {@code perf/compute_ms}, {@code perf/comm_ms}, {@code perf/model_flops_per_s},
 * {@code perf/mfu} (with {@code WEFT_PEAK_FLOPS}, the peak FLOP/s of one rank), {@code memory/peak_rss_bytes} and, on an accelerator, {@code memory/device_allocated_bytes}, {@code _reserved_bytes},
 * {@code _peak_allocated_bytes}; the
 * spec as text ({@code spec}) at the first step written. A write that fails is logged once and the record stops;
 * training goes on. With {@code tracking.tensorboard} a URI ({@code s3://bucket/prefix}) the files are written under the
 * run directory as by default, a new one begun every {@link #ROTATE}, and each closed one copied there
 * ({@link EventUploads}).
 */
public final class TensorBoardSink implements MetricsJson.Sink {
  private static final Logger log = LoggerFactory.getLogger(TensorBoardSink.class);
  private static final String FIELD = "tracking.tensorboard";
  /** How long an event file bound for a URI stays open: what TensorBoard on that URI lags behind at most. */
  static final Duration ROTATE = Duration.ofMinutes(2);
  /** The bound on waiting for the last copies at the end of a run. */
  static final Duration UPLOAD_WAIT = Duration.ofSeconds(60);
  private TensorBoardWriter writer;
  private final String specYaml;
  private final double peakFlopsPerRank;
  private final EventUploads uploads; // null: the directory is where the files stay
  private final long rotateNanos;
  private long openedNanos = System.nanoTime();
  private boolean specWritten;
  private DeviceMemory device;
  private boolean failed;

  TensorBoardSink(TensorBoardWriter writer, String specYaml, double peakFlopsPerRank, EventUploads uploads, Duration rotate) {
    this.writer = writer;
    this.specYaml = specYaml;
    this.peakFlopsPerRank = peakFlopsPerRank;
    this.uploads = uploads;
    this.rotateNanos = rotate.toNanos();
  }

  /** The sink {@code spec.tracking().tensorboard} asks for, or empty when it is {@code off}; a URI whose store cannot be opened is a {@link SpecException}. */
  public static Optional<MetricsJson.Sink> open(TrainingSpec spec, Path runDir) {
    Path dir = dir(spec.tracking(), runDir).orElse(null);
    if (dir == null) return Optional.empty();
    EventUploads uploads = uploads(spec.tracking(), runDir);
    try {
      TensorBoardWriter w = TensorBoardWriter.open(dir);
      log.info("TensorBoard event file: {}{}", w.file(), uploads == null ? "" : ", copied to " + uploads.location() + " once closed");
      return Optional.of(new TensorBoardSink(w, SpecIO.toYaml(spec), peakFlops(System.getenv(Mfu.PEAK_FLOPS_ENV)), uploads, ROTATE));
    } catch (IOException | UncheckedIOException e) {
      log.warn("no TensorBoard events: cannot write into {} ({}); set tracking.tensorboard to a writable directory or off",
          dir, e.getMessage());
      if (uploads != null) uploads.close();
      return Optional.empty();
    }
  }

  /**
   * Where the event files are written: {@code RUN_DIR/tensorboard} by default and for a URI (whose copy
   * {@link #uploads} makes), relative paths under the run dir.
   */
  public static Optional<Path> dir(TrackingSpec tracking, Path runDir) {
    if (!tracking.tensorboardOn()) return Optional.empty();
    String d = tracking.tensorboard().trim();
    return Optional.of(runDir.resolve(d.isEmpty() || CheckpointStorages.isUri(d) ? TrackingSpec.DEFAULT_DIR : d));
  }

  /** The copy to {@code tracking.tensorboard} when it is a URI, else null; a store that cannot be opened is a {@link SpecException}. */
  private static EventUploads uploads(TrackingSpec tracking, Path runDir) {
    String d = tracking.tensorboard().trim();
    return CheckpointStorages.isUri(d) ? EventUploads.open(FIELD, d, uploadWork(runDir), UPLOAD_WAIT) : null;
  }

  /**
   * Refuses, in one line naming {@code tracking.tensorboard}, a URI whose store cannot be opened (a missing bucket,
   * refused credentials, an endpoint nobody answers), as {@code checkpoint.dir} is refused: before training starts,
   * not at the first copy minutes later. Nothing for a local directory or {@code off}.
   */
  public static void checkStore(TrackingSpec tracking, Path runDir) {
    String d = tracking.tensorboard().trim();
    if (tracking.tensorboardOn() && CheckpointStorages.isUri(d)) EventUploads.check(FIELD, d, uploadWork(runDir));
  }

  private static Path uploadWork(Path runDir) { return runDir.resolve(".tensorboard-upload"); }

  @Override
  public void deviceMemory(DeviceMemory d) { device = d; }

  /** DPO's rewards: {@code train/rewards_*} of the step's batch, {@code eval/rewards_*} of the held-out pairs. */
  @Override
  public void step(StepMetrics m, Double evalLoss, java.util.Map<String, Double> objective) {
    step(m, evalLoss);
    if (failed) return;
    try {
      for (var e : objective.entrySet()) {
        String k = e.getKey();
        if (k.startsWith("rewards_")) writer.scalar(m.step(), "train/" + k, e.getValue());
        else if (k.startsWith("eval_rewards_")) writer.scalar(m.step(), "eval/" + k.substring("eval_".length()), e.getValue());
      }
      writer.flush();
    } catch (UncheckedIOException e) {
      failed = true;
      log.warn("TensorBoard events stop at step {}: {}", m.step(), e.getMessage());
    }
  }

  @Override
  public void step(StepMetrics m, Double evalLoss) {
    if (failed) return;
    try {
      long s = m.step();
      if (!specWritten) {
        writer.text(s, "spec", "```yaml\n" + specYaml + "```");
        specWritten = true;
      }
      writer.scalar(s, "train/loss", m.loss());
      if (evalLoss != null) writer.scalar(s, "eval/loss", evalLoss);
      writer.scalar(s, "train/lr", m.lr());
      writer.scalar(s, "train/grad_norm", m.gradNorm());
      writer.scalar(s, "train/loss_scale", m.lossScale());
      writer.scalar(s, "perf/tokens_per_s", m.tokensPerS());
      writer.scalar(s, "perf/step_ms", m.stepMs());
      writer.scalar(s, "perf/compute_ms", m.computeMs());
      writer.scalar(s, "perf/comm_ms", m.commMs());
      writer.scalar(s, "perf/model_flops_per_s", m.modelFlopsPerS());
      if (peakFlopsPerRank > 0) writer.scalar(s, "perf/mfu", Mfu.of(m.modelFlopsPerS(), peakFlopsPerRank, m.worldSize()));
      writer.scalar(s, "memory/peak_rss_bytes", m.peakRssBytes());
      if (device != null) {
        writer.scalar(s, "memory/device_allocated_bytes", device.allocated());
        writer.scalar(s, "memory/device_reserved_bytes", device.reserved());
        writer.scalar(s, "memory/device_peak_allocated_bytes", device.peakAllocated());
        device = null;
      }
      writer.flush();
      if (uploads != null && System.nanoTime() - openedNanos >= rotateNanos) rotate();
    } catch (IOException | UncheckedIOException e) {
      failed = true;
      log.warn("TensorBoard events stop at step {}: {}", m.step(), e.getMessage());
    }
  }

  /** Closes the current file, hands it to the uploads, and begins the next. */
  private void rotate() throws IOException {
    writer.close();
    uploads.submit(writer.file());
    writer = TensorBoardWriter.open(writer.file().getParent());
    openedNanos = System.nanoTime();
  }

  @Override
  public void close() {
    try {
      writer.close();
      if (uploads != null) uploads.submit(writer.file());
    } catch (UncheckedIOException e) {
      log.warn("TensorBoard event file not closed: {}", e.getMessage());
    } finally {
      if (uploads != null) uploads.close();
    }
  }

  static double peakFlops(String env) {
    if (env == null || env.isBlank()) return 0;
    try {
      return Double.parseDouble(env.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
