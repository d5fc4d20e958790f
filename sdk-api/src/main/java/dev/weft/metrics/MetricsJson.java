package dev.weft.metrics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Run outputs on disk: {@code metrics.jsonl} (a line per step, flushed as written so a crash keeps
 * what was measured) and {@code summary.json} (written atomically at the end).
 */
public final class MetricsJson implements AutoCloseable {
  public static final ObjectMapper MAPPER = new ObjectMapper()
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

  /** Another record of each step (TensorBoard's event files), handed exactly what {@code metrics.jsonl} records. */
  public interface Sink extends AutoCloseable {
    void step(StepMetrics m, Double evalLoss);

    /** As above, with the objective's own figures (DPO's rewards, on the training batch and on held-out pairs). */
    default void step(StepMetrics m, Double evalLoss, java.util.Map<String, Double> objective) { step(m, evalLoss); }

    /** The accelerator's memory as the next {@link #step} was measured (never on CPU). */
    default void deviceMemory(DeviceMemory m) {}

    @Override
    void close();
  }

  private final Path runDir;
  private BufferedWriter lines;
  private final java.util.List<Sink> sinks;
  private boolean closed;

  public MetricsJson(Path runDir) { this(runDir, false); }

  /** @param append keep the lines already there (a resumed run continues its metrics) */
  public MetricsJson(Path runDir, boolean append) { this(runDir, append, java.util.List.of()); }

  /** As {@link #MetricsJson(Path, boolean)}, each step also handed to {@code sinks} (closed with this). */
  public MetricsJson(Path runDir, boolean append, java.util.List<Sink> sinks) {
    this.runDir = runDir;
    this.sinks = java.util.List.copyOf(sinks);
    try {
      Files.createDirectories(runDir);
      lines = Files.newBufferedWriter(runDir.resolve("metrics.jsonl"), StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING,
          StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write metrics into " + runDir + "; choose a writable --run-dir", e);
    }
  }

  public void step(StepMetrics m) { step(m, null); }

  /** Hands rank 0's device memory to the sinks, before the step it was measured with. */
  public void deviceMemory(DeviceMemory m) { sinks.forEach(s -> s.deviceMemory(m)); }

  /** A step's line, with {@code eval_loss} when the step evaluated on held-out data. */
  public void step(StepMetrics m, Double evalLoss) { step(m, evalLoss, java.util.Map.of()); }

  /** As above, with the training objective's own figures (DPO's rewards) after the step's. */
  public void step(StepMetrics m, Double evalLoss, java.util.Map<String, Double> objective) {
    try {
      com.fasterxml.jackson.databind.node.ObjectNode line = MAPPER.valueToTree(m);
      if (evalLoss != null) line.put("eval_loss", evalLoss);
      objective.forEach(line::put);
      lines.write(MAPPER.writeValueAsString(line));
      lines.newLine();
      lines.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Sink sink : sinks) sink.step(m, evalLoss, objective);
  }

  public static void writeSummary(Path runDir, RunSummary s) {
    try {
      Files.createDirectories(runDir);
      Path tmp = runDir.resolve("summary.json.tmp");
      Files.writeString(tmp, MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(s));
      Files.move(tmp, runDir.resolve("summary.json"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write summary.json into " + runDir, e);
    }
  }

  public static RunSummary readSummary(Path runDir) {
    try {
      return MAPPER.readValue(runDir.resolve("summary.json").toFile(), RunSummary.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String json(Object o) {
    try {
      return MAPPER.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The loss of {@code step} as recorded in {@code runDir/metrics.jsonl} (the last attempt of it when a
   * step was redone); empty when the file or the step is not there.
   */
  public static java.util.OptionalDouble lossAt(Path runDir, long step) {
    Path file = runDir.resolve("metrics.jsonl");
    if (!Files.isRegularFile(file)) return java.util.OptionalDouble.empty();
    java.util.OptionalDouble found = java.util.OptionalDouble.empty();
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.isBlank()) continue;
        var n = MAPPER.readTree(line);
        if (n.path("step").asLong(-1) == step && n.has("loss")) found = java.util.OptionalDouble.of(n.get("loss").asDouble());
      }
    } catch (IOException e) {
      return java.util.OptionalDouble.empty(); // a torn last line after a crash: no answer rather than a wrong one
    }
    return found;
  }

  /**
   * Drops the lines of steps after {@code step} from a {@code metrics.jsonl} (and a torn last line), so that a run
   * resumed from the checkpoint of {@code step} records every later step once. Nothing happens without the file.
   */
  public static void keepThrough(Path file, long step) {
    if (!Files.isRegularFile(file)) return;
    try {
      StringBuilder kept = new StringBuilder();
      for (String line : Files.readAllLines(file)) {
        if (line.isBlank()) continue;
        long at;
        try {
          at = MAPPER.readTree(line).path("step").asLong(Long.MAX_VALUE);
        } catch (IOException torn) {
          continue; // the line a crash cut short
        }
        if (at <= step) kept.append(line).append('\n');
      }
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, kept.toString());
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot truncate " + file + " to step " + step, e);
    }
  }

  /**
   * Drops the lines of steps after {@code step} from this run's metrics.jsonl and goes on appending after them: the
   * loss-spike guard rolled the run back to the checkpoint of {@code step}, so every step still appears once.
   */
  public void rewind(long step) {
    Path file = runDir.resolve("metrics.jsonl");
    try {
      lines.close();
      keepThrough(file, step);
      lines = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
          StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot rewind " + file + " to step " + step, e);
    }
  }

  @Override
  public void close() {
    if (closed) return;
    closed = true;
    sinks.forEach(Sink::close);
    try {
      lines.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
