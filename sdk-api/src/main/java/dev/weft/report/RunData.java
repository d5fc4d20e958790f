package dev.weft.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.error.WeftException;
import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run directory as columns: every numeric key of {@code metrics.jsonl} becomes a column of doubles
 * (NaN where a line lacks the key, so older files still load), plus {@code summary.json} when present.
 */
public final class RunData {
  private final Path dir;
  private final Map<String, double[]> columns;
  private final int rows;
  private final JsonNode summary;

  private RunData(Path dir, Map<String, double[]> columns, int rows, JsonNode summary) {
    this.dir = dir;
    this.columns = columns;
    this.rows = rows;
    this.summary = summary;
  }

  public static RunData load(Path runDir) {
    Path metrics = runDir.resolve("metrics.jsonl");
    if (!Files.isRegularFile(metrics)) {
      throw new dev.weft.error.BadInputException(runDir + " has no metrics.jsonl; pass the --run-dir of a run (weft train ... --run-dir DIR)");
    }
    List<JsonNode> lines = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(metrics)) {
        if (!line.isBlank()) lines.add(MetricsJson.MAPPER.readTree(line));
      }
    } catch (IOException e) {
      // a crash can leave a partial last line; everything before it is good
      if (lines.isEmpty()) throw new WeftException("cannot read " + metrics + ": " + e.getMessage(), e);
    }
    if (lines.isEmpty()) throw new dev.weft.error.BadInputException(metrics + " is empty: the run recorded no step yet");
    Map<String, double[]> cols = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      for (Iterator<Map.Entry<String, JsonNode>> it = lines.get(i).fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getValue().isNumber()) continue;
        double[] col = cols.computeIfAbsent(e.getKey(), k -> {
          double[] a = new double[lines.size()];
          java.util.Arrays.fill(a, Double.NaN);
          return a;
        });
        col[i] = e.getValue().asDouble();
      }
    }
    JsonNode summary = null;
    Path s = runDir.resolve("summary.json");
    if (Files.isRegularFile(s)) {
      try {
        summary = MetricsJson.MAPPER.readTree(s.toFile());
      } catch (IOException e) {
        summary = null; // the report still renders from the steps
      }
    }
    return new RunData(runDir, cols, lines.size(), summary);
  }

  public Path dir() { return dir; }

  public int rows() { return rows; }

  public boolean has(String column) {
    double[] c = columns.get(column);
    if (c == null) return false;
    for (double v : c) if (!Double.isNaN(v)) return true;
    return false;
  }

  /** The column, or NaNs when the run did not record it. */
  public double[] column(String name) {
    double[] c = columns.get(name);
    if (c != null) return c;
    double[] nan = new double[rows];
    java.util.Arrays.fill(nan, Double.NaN);
    return nan;
  }

  public double[] steps() { return has("step") ? column("step") : java.util.stream.IntStream.rangeClosed(1, rows).asDoubleStream().toArray(); }

  /** {@code summary.json}, or null when the run did not finish. */
  public JsonNode summary() { return summary; }
}
