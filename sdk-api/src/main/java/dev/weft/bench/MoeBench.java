package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Expert parallelism (issue 29): the same Mixtral-like batch trained at dp=2 with its experts split over ep=2 ranks
 * (tokens dispatched and combined by all-to-all) and whole on each rank (ep=1), the order swapped per round; a pair
 * is one round's two median {@code step_ms}. A second row counts the data-parallel gradient bytes reduced per step
 * (ep=2 reduces no expert over dp: each expert lives on one rank of the pair). {@code --quick} runs a tiny model in-process.
 */
public final class MoeBench {
  public record Config(Trainer model, String label, boolean processes, int rounds, int steps, int warmSteps) {
    public static Config of(boolean quick) {
      Trainer mixtral = Trainer.model("mixtral").set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 4)
          .set("model.config.num_key_value_heads", 2).set("model.config.num_experts_per_tok", 2).dataParallel(2).microBatches(1)
          .warmup(1).lr(1e-3).seed(7);
      if (quick) {
        return new Config(mixtral.set("model.config.hidden_size", 32).set("model.config.intermediate_size", 32)
            .set("model.config.num_local_experts", 4).seqLen(32).globalBatch(2), "Mixtral (2 layers h=32, 4 experts) seq 32, in-process",
            false, 1, 3, 1);
      }
      return new Config(mixtral.set("model.config.hidden_size", 256).set("model.config.intermediate_size", 512)
          .set("model.config.num_local_experts", 8).seqLen(256).globalBatch(8),
          "Mixtral (2 layers h=256, 8 experts of 512, top-2) seq 256 batch 8 fp32 at dp=2, ranks as processes", true, 3, 6, 2);
    }
  }

  /** One run: median step and the median data-parallel gradient MiB reduced per step. */
  public record Run(double stepMs, double reducedMib) {}

  /** {@code ep2[round]}, {@code ep1[round]}. */
  public record Result(Config config, Run[] ep2, Run[] ep1) {}

  private MoeBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      var runs = Interleaved.rounds(c.rounds(), dir, "ep2", "ep1", (split, run) -> {
        Trainer t = c.model().steps(c.steps()).expertParallel(split ? 2 : 1).runDir(run);
        if (c.processes()) ZeroStepBench.launch(t.toSpec(), run);
        else t.fit();
        Path metrics = run.resolve("metrics.jsonl");
        return new Run(ZeroStepBench.breakdown(metrics, c.warmSteps()).stepMs(), reducedMib(metrics));
      });
      return new Result(c, runs.first().toArray(Run[]::new), runs.second().toArray(Run[]::new));
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** The last step's gradient MiB reduced over dp (the same every step: a count, not a timing). */
  private static double reducedMib(Path metrics) {
    try {
      List<String> lines = Files.readAllLines(metrics);
      return MetricsJson.MAPPER.readTree(lines.get(lines.size() - 1)).get("zero").get("reduced_mib").asDouble();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static List<BenchRow> rows(Result r) {
    double[] two = Arrays.stream(r.ep2()).mapToDouble(Run::stepMs).toArray();
    double[] one = Arrays.stream(r.ep1()).mapToDouble(Run::stepMs).toArray();
    return List.of(
        BenchRow.paired("moe", "step_ms: ep=2 vs ep=1 (swapped per round), " + r.config().label(),
            Stats.median(two), Stats.median(one), "ms", Stats.ratios(two, one), "≤ 1.15", "pairs: the runs of one round"),
        BenchRow.of("moe", "gradient MiB reduced over dp per step: ep=2 vs ep=1, " + r.config().label(),
            r.ep2()[0].reducedMib(), r.ep1()[0].reducedMib(), "MiB", "report",
            "a count: at ep=2 = dp each expert's edp group is one rank"));
  }
}
