package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.launch.LocalLauncher;
import dev.weft.metrics.MetricsJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Tensor parallelism against data parallelism at the same global batch: tp=2 and dp=2 runs of the
 * same model, each as two worker processes of one thread ({@link Trainer#launch}), alternated (the
 * order swaps every round) so load from other processes hits both alike. Per run the medians, over
 * the steps after the warm-up, of {@code metrics.jsonl}'s {@code step_ms} and {@code comm_ms} (the
 * exposed communication: for tp its collectives, for dp the gradient buckets backward did not hide).
 */
public final class TpStepBench {
  public record Config(Trainer model, String label, int rounds, int steps, int warmSteps) {
    public static Config of(boolean quick) {
      Trainer small = Trainer.model("gpt").size("small").seqLen(256).globalBatch(8).warmup(1).lr(3e-4).seed(7);
      Trainer mini = Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64)
          .set("model.config.heads", 4).seqLen(32).globalBatch(8).warmup(1).lr(1e-3).seed(7);
      return quick ? new Config(mini, "GPT 2 layers h=64 seq 32 batch 8", 1, 3, 1)
          : new Config(small, "GPT small (8 layers h=512 seq 256 batch 8)", 3, 5, 1);
    }
  }

  /** One run's medians over its measured steps. */
  public record Run(double stepMs, double commMs) {}

  /** Per round, the tp=2 run and the dp=2 run. */
  public record Result(Config config, List<Run> tp, List<Run> dp) {}

  private TpStepBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      var runs = Interleaved.rounds(c.rounds(), dir, "tp", "dp", (tensor, run) -> {
        Trainer t = c.model().steps(c.warmSteps() + c.steps());
        return launch(tensor ? t.tensorParallel(2) : t.dataParallel(2), run, c.warmSteps());
      });
      return new Result(c, runs.first(), runs.second());
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  private static Run launch(Trainer t, Path runDir, int warm) {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    LocalLauncher.Outcome o = t.runDir(runDir).launch(new PrintStream(console, true, StandardCharsets.UTF_8));
    if (!o.ok()) {
      throw new IllegalStateException("benchmark run in " + runDir + " failed (rank " + o.failedRank() + "): " + o.reason()
          + "\n" + console.toString(StandardCharsets.UTF_8));
    }
    List<Double> step = new ArrayList<>(), comm = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
        if (line.isBlank()) continue;
        var n = MetricsJson.MAPPER.readTree(line);
        if (!n.has("step_ms") || n.path("step").asLong() <= warm) continue;
        step.add(n.get("step_ms").asDouble());
        comm.add(n.path("comm_ms").asDouble());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Run(dev.weft.util.Median.of(step), dev.weft.util.Median.of(comm));
  }

  public static List<BenchRow> rows(Result r) {
    double[] tpStep = r.tp().stream().mapToDouble(Run::stepMs).toArray();
    double[] dpStep = r.dp().stream().mapToDouble(Run::stepMs).toArray();
    double[] tpComm = r.tp().stream().mapToDouble(Run::commMs).toArray();
    double[] dpComm = r.dp().stream().mapToDouble(Run::commMs).toArray();
    double[] tpCompute = minus(tpStep, tpComm), dpCompute = minus(dpStep, dpComm);
    String label = r.config().label();
    List<BenchRow> rows = new ArrayList<>();
    rows.add(BenchRow.paired("tp", "step_ms: tp=2 vs dp=2, 2 processes × 1 thread (runs alternated), " + label,
        Stats.median(tpStep), Stats.median(dpStep), "ms", Stats.ratios(tpStep, dpStep), "≤ 1.05",
        "pairs: the two runs of one round, each its median step_ms"));
    rows.add(BenchRow.paired("tp", "compute_ms (step_ms − comm_ms): tp=2 vs dp=2, " + label,
        Stats.median(tpCompute), Stats.median(dpCompute), "ms", Stats.ratios(tpCompute, dpCompute), "(report)",
        "the step without its exposed communication"));
    rows.add(exposed("tp=2", tpComm, tpStep, label, "tensor-parallel collectives the step waited for"));
    rows.add(exposed("dp=2", dpComm, dpStep, label, "gradient buckets backward did not hide, and the loss all-reduce"));
    return rows;
  }

  private static BenchRow exposed(String layout, double[] comm, double[] step, String label, String what) {
    return BenchRow.of("tp", layout + ": exposed communication per step (comm_ms) vs step_ms, " + label,
        Stats.median(comm), Stats.median(step), "ms", "(report)", String.format(Locale.ROOT, "%s; per run %s ms",
            what, java.util.Arrays.toString(java.util.Arrays.stream(comm).map(v -> Math.round(v * 10) / 10.0).toArray())));
  }

  private static double[] minus(double[] a, double[] b) {
    double[] d = new double[a.length];
    for (int i = 0; i < a.length; i++) d[i] = a[i] - b[i];
    return d;
  }
}
