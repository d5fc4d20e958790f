package dev.weft.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.data.PackedSamples;
import dev.weft.data.ShardWriter;
import dev.weft.data.TokenSource;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Packing against padding on a length-skewed chat set (issue 27): conversations of log-normal lengths (most short, a
 * few longer than a sample; the first 40 % of each is its prompt, no target) written as token shards, then the same
 * Llama trained on them with {@code data.packing: true} and {@code false}, in an order swapped per round. The
 * throughput counted is real tokens (conversation tokens, not padding) of the samples each measured step read, over
 * its median {@code step_ms}; a pair is one round's two runs.
 */
public final class PackingBench {
  public record Config(Trainer model, String label, int seqLen, int batch, int documents, double medianLength, int rounds, int steps,
                       int warmSteps) {
    public static Config of(boolean quick) {
      if (quick) {
        Trainer tiny = Trainer.model("llama").set("model.config.num_hidden_layers", 2).warmup(1).lr(1e-3).seed(7);
        return new Config(tiny, "Llama tiny (2 layers h=64) seq 128 batch 4, in-process", 128, 4, 300, 30, 1, 3, 1);
      }
      Trainer tiny = Trainer.model("llama").warmup(1).lr(1e-3).seed(7);
      return new Config(tiny, "Llama tiny (4 layers h=64) seq 256 batch 4, in-process", 256, 4, 1000, 50, 2, 5, 1);
    }
  }

  /** One run: median step time (ms) after the warm-up steps and the real tokens per step it read (mean). */
  public record Run(double stepMs, double realTokensPerStep) {
    double tokensPerSecond() { return realTokensPerStep * 1000 / stepMs; }
  }

  public record Result(Config config, Run[] packed, Run[] padded, double gain) {}

  private PackingBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      Path data = dir.resolve("chat");
      long[] lengths = writeSkewedChat(data, c);
      var runs = Interleaved.rounds(c.rounds(), dir, "packed", "padded", (pack, run) -> {
        Trainer t = c.model().data(data.toString()).set("data.packing", String.valueOf(pack)).seqLen(c.seqLen())
            .globalBatch(c.batch()).steps(c.steps()).runDir(run);
        t.fit();
        return new Run(medianStepMs(run.resolve("metrics.jsonl"), c.warmSteps()), realTokensPerStep(t.toSpec(), c));
      });
      return new Result(c, runs.first().toArray(Run[]::new), runs.second().toArray(Run[]::new), dev.weft.data.BestFitPacking.gainOverPadding(lengths, c.seqLen() + 1));
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** Conversations of log-normal lengths (at least 4 tokens, at most 3 samples long); their lengths. */
  static long[] writeSkewedChat(Path dir, Config c) {
    Random r = new Random(27);
    long[] lengths = new long[c.documents()];
    try (ShardWriter w = new ShardWriter(dir, 256, "skewed chat", -1, 1 << 22, true)) {
      for (int d = 0; d < lengths.length; d++) {
        int n = (int) Math.max(4, Math.min(3L * c.seqLen(), Math.round(c.medianLength() * Math.exp(0.9 * r.nextGaussian()))));
        int[] ids = new int[n];
        boolean[] targets = new boolean[n];
        for (int k = 0; k < n; k++) {
          ids[k] = r.nextInt(256);
          targets[k] = k >= 0.4 * n;
        }
        w.append(ids, targets);
        w.endDocument();
        lengths[d] = n;
      }
      w.finish();
    }
    return lengths;
  }

  /** Mean conversation tokens per step over the measured steps (the samples those steps read). */
  private static double realTokensPerStep(TrainingSpec spec, Config c) {
    PackedSamples s = (PackedSamples) TokenSource.of(spec.data(), spec.train().seed());
    long tokens = 0;
    for (long i = (long) c.warmSteps() * c.batch(); i < (long) c.steps() * c.batch(); i++) tokens += s.documentTokens(i);
    return (double) tokens / (c.steps() - c.warmSteps());
  }

  private static double medianStepMs(Path metrics, int warmSteps) {
    List<Double> ms = new ArrayList<>();
    try {
      List<String> lines = Files.readAllLines(metrics);
      for (String line : lines.subList(Math.min(warmSteps, lines.size() - 1), lines.size())) {
        JsonNode m = MetricsJson.MAPPER.readTree(line);
        if (m.has("step_ms")) ms.add(m.get("step_ms").asDouble());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Stats.median(ms.stream().mapToDouble(Double::doubleValue).toArray());
  }

  public static List<BenchRow> rows(Result r) {
    double[] packed = java.util.Arrays.stream(r.packed()).mapToDouble(Run::tokensPerSecond).toArray();
    double[] padded = java.util.Arrays.stream(r.padded()).mapToDouble(Run::tokensPerSecond).toArray();
    return List.of(BenchRow.paired("packing", "real tokens/s: packed (best fit, documents kept apart) vs padded (one "
        + "conversation per sample), length-skewed chat set, " + r.config().label(), Stats.median(packed), Stats.median(padded),
        "tok/s", Stats.ratios(packed, padded), "≥ 1.8", String.format(java.util.Locale.ROOT,
            "pairs: the runs of one round; samples padding needs over packing's: %.2f", r.gain())));
  }
}
