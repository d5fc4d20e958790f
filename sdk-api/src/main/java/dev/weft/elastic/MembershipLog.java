package dev.weft.elastic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.RunRecord;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every membership change of a run: generation records live in the rendezvous store ({@code log/R},
 * so whichever node leads the last generation knows the whole history) and are written to
 * {@code elastic.json} as they change. At the end the leader adds {@code restarts} and the elastic
 * history to {@code summary.json}, and tags each line of {@code metrics.jsonl} with its generation.
 */
public final class MembershipLog {
  private final KeyValue kv;
  private final Path runDir;
  private RunRecord record; // where elastic.json and the finished summary and metrics are copied; null: the run dir only

  public MembershipLog(KeyValue kv, Path runDir) {
    this.kv = kv;
    this.runDir = runDir;
  }

  /** From now on, every write of elastic.json and the end's files are copied to {@code r} too (null: none). */
  public void publishTo(RunRecord r) { this.record = r; }

  private void publish(List<String> names) {
    if (record != null) record.publish(names);
  }

  public void record(GenerationRecord r) {
    kv.set("log/" + r.generation(), MetricsJson.json(r));
  }

  public int restarts() { return (int) kv.add("restarts", 0); }

  public void countRestart() { kv.add("restarts", 1); }

  public List<GenerationRecord> history(int lastGeneration) {
    List<GenerationRecord> out = new ArrayList<>();
    for (int g = 0; g <= lastGeneration; g++) {
      String json = kv.getOrNull("log/" + g);
      if (json == null) continue;
      try {
        out.add(MetricsJson.MAPPER.readValue(json, GenerationRecord.class));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  /** The elastic part of summary.json (also the content of elastic.json). */
  public Map<String, Object> summary(int lastGeneration) {
    List<GenerationRecord> gens = history(lastGeneration);
    List<Map<String, Object>> rows = new ArrayList<>();
    List<Double> recovery = new ArrayList<>();
    for (GenerationRecord g : gens) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("generation", g.generation());
      row.put("nodes", g.nodes());
      row.put("world_size", g.worldSize());
      row.put("dp", g.dp());
      row.put("micro_batches", g.microBatches());
      row.put("cause", g.cause());
      if (g.reason() != null) row.put("reason", g.reason());
      row.put("first_step", g.firstStep());
      row.put("standby_ranks", g.standbyRanks());
      if (g.failedAtMs() > 0) row.put("previous_failed_at_ms", g.failedAtMs());
      if (g.closedAtMs() > 0) row.put("previous_ended_at_ms", g.closedAtMs());
      if (g.firstStepAtMs() > 0) row.put("first_step_at_ms", g.firstStepAtMs());
      GenerationRecord.Recovery r = g.recovery();
      if (r != null) {
        row.put("recovery_s", r);
        recovery.add(r.totalS());
      }
      rows.add(row);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("restarts", restarts());
    out.put("generations", rows);
    out.put("recovery_seconds", recovery);
    return out;
  }

  public void writeElasticJson(int lastGeneration) {
    writeAtomically(runDir.resolve("elastic.json"), MetricsJson.json(summary(lastGeneration)));
    publish(List.of(RunRecord.ELASTIC)); // not metrics.jsonl: this node's may be an earlier generation's, the record is newer
  }

  /** At the end, on the node that holds rank 0's outputs: summary.json gains the history; metrics.jsonl its generations. */
  public void finish(int lastGeneration) {
    Map<String, Object> elastic = summary(lastGeneration);
    writeAtomically(runDir.resolve("elastic.json"), MetricsJson.json(elastic));
    if (Files.isRegularFile(runDir.resolve("summary.json"))) {
      RunSummary s = MetricsJson.readSummary(runDir);
      String first = kv.getOrNull(ElasticWorker.INITIAL_LOSS); // step 1 may have run on another node
      List<GenerationRecord> gens = history(lastGeneration);
      double wall = gens.isEmpty() || gens.get(0).sealedAtMs() == 0 ? s.wallS()
          : (System.currentTimeMillis() - gens.get(0).sealedAtMs()) / 1000.0;
      s = s.withRunTotals(first == null ? s.initialLoss() : Double.parseDouble(first), wall);
      MetricsJson.writeSummary(runDir, s.withElastic(restarts(), elastic));
    }
    tagMetrics(history(lastGeneration));
    publish(RunRecord.FILES); // this node's rank 0 finished the run: its metrics.jsonl is the whole history
  }

  /**
   * Keeps the last line of each step (a step redone after a failure replaces the lost attempt) and adds
   * its generation.
   */
  private void tagMetrics(List<GenerationRecord> gens) {
    Path file = runDir.resolve("metrics.jsonl");
    if (!Files.isRegularFile(file)) return;
    try {
      TreeMap<Long, ObjectNode> byStep = new TreeMap<>();
      for (String line : Files.readAllLines(file)) {
        if (line.isBlank()) continue;
        JsonNode n = MetricsJson.MAPPER.readTree(line);
        if (!(n instanceof ObjectNode o) || !o.has("step")) continue;
        long step = o.get("step").asLong();
        o.put("generation", generationOf(step, gens));
        byStep.put(step, o);
      }
      StringBuilder sb = new StringBuilder();
      for (ObjectNode o : byStep.values()) sb.append(MetricsJson.MAPPER.writeValueAsString(o)).append('\n');
      writeAtomically(file, sb.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot tag " + file + " with generations", e);
    }
  }

  static int generationOf(long step, List<GenerationRecord> gens) {
    int g = gens.isEmpty() ? 0 : gens.get(0).generation();
    for (GenerationRecord r : gens) if (r.firstStep() > 0 && r.firstStep() <= step) g = r.generation();
    return g;
  }

  private static void writeAtomically(Path file, String content) {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, content);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
