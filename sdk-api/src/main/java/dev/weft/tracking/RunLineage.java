package dev.weft.tracking;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.CheckpointLayout;
import dev.weft.checkpoint.CheckpointStorages;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.StepMetrics;
import dev.weft.spec.TrainingSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rank 0's {@code RUN_DIR/lineage.json}. Opening it starts hashing the run's inputs ({@link LineageInputs}) on a
 * thread of its own, so no step waits for it, and writes the file with them ({@code status: running}) when done;
 * closing it (after {@code summary.json} is written) waits for the hashes and writes the whole record: the inputs,
 * the samples consumed (per epoch of the training split), the checkpoints written and kept, the exports made of the
 * run so far, and the final metrics ({@code summary.json}, else the last step's line).
 */
public final class RunLineage implements MetricsJson.Sink {
  private static final Logger log = LoggerFactory.getLogger(RunLineage.class);

  private final TrainingSpec spec;
  private final Path runDir;
  private final CompletableFuture<ObjectNode> inputs;
  private volatile ObjectNode lastStep;
  private boolean closed;

  private RunLineage(TrainingSpec spec, Path runDir, CompletableFuture<ObjectNode> inputs) {
    this.spec = spec;
    this.runDir = runDir;
    this.inputs = inputs;
  }

  public static RunLineage open(TrainingSpec spec, Path runDir) {
    Path file = runDir.resolve(Lineage.FILE);
    CompletableFuture<ObjectNode> f = new CompletableFuture<>();
    RunLineage l = new RunLineage(spec, runDir, f);
    Thread t = new Thread(() -> {
      try {
        ObjectNode in = LineageInputs.of(spec, LineageInputs.known(Lineage.readOrNull(file)));
        Lineage.write(l.record(in, "running", null), file);
        f.complete(in);
      } catch (RuntimeException e) {
        log.warn("lineage.json: the run's inputs cannot be hashed ({}); it records the spec only", e.getMessage());
        ObjectNode in = Lineage.MAPPER.createObjectNode();
        in.put("inputs_error", String.valueOf(e.getMessage()));
        f.complete(in);
      }
    }, "weft-lineage");
    t.setDaemon(true);
    t.start();
    return l;
  }

  @Override
  public void step(StepMetrics m, Double evalLoss) {
    ObjectNode line = MetricsJson.MAPPER.valueToTree(m);
    if (evalLoss != null) line.put("eval_loss", evalLoss);
    lastStep = line;
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    try {
      JsonNode summary = readSummary();
      String status = summary == null ? "stopped" : summary.path("status").asText("stopped");
      Lineage.write(record(inputs.join(), status, summary == null ? lastStep : summary), runDir.resolve(Lineage.FILE));
    } catch (RuntimeException e) {
      log.warn("lineage.json not written: {}", e.getMessage());
    }
  }

  private ObjectNode record(ObjectNode in, String status, JsonNode finalMetrics) {
    ObjectNode n = Lineage.MAPPER.createObjectNode();
    ObjectNode run = n.putObject("run");
    run.put("name", spec.name());
    run.put("dir", runDir.toAbsolutePath().normalize().toString());
    run.put("status", status);
    n.setAll(in.deepCopy());
    long steps = finalMetrics == null ? 0 : finalMetrics.path("steps").asLong(finalMetrics.path("step").asLong(0));
    n.set("samples", samples(steps));
    n.set("checkpoints", checkpoints(steps));
    ObjectNode earlier = Lineage.readOrNull(runDir.resolve(Lineage.FILE));
    n.set("exports", earlier != null && earlier.has("exports") ? earlier.get("exports") : Lineage.MAPPER.createArrayNode());
    if (finalMetrics != null) n.set("final_metrics", finalMetrics);
    return n;
  }

  /** Samples consumed: steps × global batch, split into epochs of the training split where it has an end. */
  private ObjectNode samples(long steps) {
    ObjectNode s = Lineage.MAPPER.createObjectNode();
    long consumed = steps * spec.train().globalBatch();
    s.put("steps", steps);
    s.put("global_batch", spec.train().globalBatch());
    s.put("consumed", consumed);
    Long epoch = LineageInputs.epochSamples(spec);
    if (epoch == null || epoch == 0) return s.putNull("per_epoch");
    s.put("epoch_samples", epoch);
    ArrayNode per = s.putArray("per_epoch");
    for (long left = consumed; left > 0 && per.size() < 1000; left -= epoch) per.add(Math.min(epoch, left));
    return s;
  }

  /** Where checkpoints went, the steps saved up to {@code steps}, and those still there (local directories). */
  private ObjectNode checkpoints(long steps) {
    ObjectNode c = Lineage.MAPPER.createObjectNode();
    int every = spec.checkpoint().every();
    String dir = spec.checkpoint().dir();
    boolean uri = CheckpointStorages.isUri(dir);
    Path root = uri ? null : CheckpointLayout.rootFor(spec.checkpoint(), runDir);
    c.put("location", uri ? dir : root.toAbsolutePath().normalize().toString());
    ArrayNode written = c.putArray("written");
    for (long s = every; every > 0 && s <= steps; s += every) written.add(s);
    if (root != null && Files.isDirectory(root)) {
      ArrayNode kept = c.putArray("kept");
      java.util.List<Path> committed = new java.util.ArrayList<>(CheckpointLayout.committed(root));
      java.util.Collections.reverse(committed); // oldest first
      for (Path p : committed) kept.add(p.toAbsolutePath().normalize().toString());
    }
    return c;
  }

  private JsonNode readSummary() {
    Path f = runDir.resolve("summary.json");
    if (!Files.isRegularFile(f)) return null;
    try {
      return MetricsJson.MAPPER.readTree(f.toFile());
    } catch (java.io.IOException e) {
      return null;
    }
  }
}
