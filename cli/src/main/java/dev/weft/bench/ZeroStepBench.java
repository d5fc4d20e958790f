package dev.weft.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.launch.LocalLauncher;
import dev.weft.launch.WorkerMain;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * ZeRO-2 and ZeRO-3 step time against ZeRO-0 at dp = 2 (issue 20): each round runs the three stages
 * once, in an order rotated per round, as two worker processes of one thread each (a real launch,
 * {@code OMP_WAIT_POLICY=PASSIVE}); a pair is stage k and stage 0 of one round, each the median
 * {@code step_ms} of its run's steps after the warm-up ones. Every run's {@code metrics.jsonl} also
 * gives the breakdown: compute, exposed communication and its ZeRO parts (gather, reduction and
 * post-step parameter-gather waits). {@code --quick} runs a tiny GPT in-process (threads) instead.
 */
public final class ZeroStepBench {
  static final int[] STAGES = {0, 2, 3};

  public record Config(Trainer model, String label, boolean processes, int rounds, int steps, int warmSteps) {
    public static Config of(boolean quick) {
      if (quick) {
        Trainer tiny = Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64)
            .set("model.config.heads", 4).seqLen(32).globalBatch(8).warmup(1).lr(1e-3).seed(7);
        return new Config(tiny, "GPT 2 layers h=64 seq 32 batch 8, in-process", false, 1, 4, 1);
      }
      Trainer small = Trainer.model("gpt").size("small").seqLen(256).globalBatch(8).warmup(2).lr(3e-4).seed(7);
      return new Config(small, "GPT small (8 layers h=512 seq 256, 25.6 M params) batch 8 fp32, 2 processes × 1 thread", true, 3, 7, 2);
    }
  }

  /** One run's medians over its measured steps, in ms (gathers and MiB per step). */
  public record Breakdown(double stepMs, double computeMs, double commMs, double gatherWaitMs, double reduceWaitMs,
                          double paramGatherWaitMs, double gathers, double gatheredMib) {}

  /** {@code runs[i][round]}: stage {@code STAGES[i]} in that round. */
  public record Result(Config config, Breakdown[][] runs) {}

  private ZeroStepBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      Breakdown[][] runs = new Breakdown[STAGES.length][c.rounds()];
      for (int r = 0; r < c.rounds(); r++) {
        for (int k = 0; k < STAGES.length; k++) {
          int i = (k + r) % STAGES.length;
          Path run = dir.resolve("r" + r + "-z" + STAGES[i]);
          Trainer t = c.model().steps(c.steps()).dataParallel(2).zero(STAGES[i]).runDir(run);
          if (c.processes()) launch(t.toSpec(), run);
          else t.fit();
          runs[i][r] = breakdown(run.resolve("metrics.jsonl"), c.warmSteps());
        }
      }
      return new Result(c, runs);
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** Two worker processes of one thread each, their output into the run's {@code workers.log}. */
  static void launch(TrainingSpec spec, Path run) { launch(spec, run, Map.of()); }

  /** {@link #launch(TrainingSpec, Path)} with {@code env} added to the workers' environment. */
  static void launch(TrainingSpec spec, Path run, Map<String, String> env) {
    try {
      Files.createDirectories(run);
      Path file = run.resolve("spec.yaml"), log = run.resolve("workers.log");
      SpecIO.write(spec, file);
      LocalLauncher.Outcome o;
      try (PrintStream out = new PrintStream(Files.newOutputStream(log), true, java.nio.charset.StandardCharsets.UTF_8)) {
        o = new LocalLauncher(List.of(WorkerMain.CLASS, "worker", "--spec", file.toString(), "--run-dir", run.toString(),
            "--timeout", "600"), withPassiveWait(env), out).run(spec.worldSize(), 1);
      }
      if (!o.ok()) throw new IllegalStateException("zero bench run " + run.getFileName() + " failed: " + o.reason() + "\n" + Files.readString(log));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, String> withPassiveWait(Map<String, String> env) {
    Map<String, String> all = new java.util.HashMap<>(env);
    all.put("OMP_WAIT_POLICY", "PASSIVE");
    return all;
  }

  static Breakdown breakdown(Path metrics, int warmSteps) { return breakdown(steps(metrics), warmSteps); }

  /** A run's metrics.jsonl, a node per step. */
  static List<JsonNode> steps(Path metrics) {
    List<JsonNode> steps = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(metrics)) if (!line.isBlank()) steps.add(MetricsJson.MAPPER.readTree(line));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return steps;
  }

  static Breakdown breakdown(List<JsonNode> steps, int warmSteps) {
    List<JsonNode> kept = steps.subList(Math.min(warmSteps, steps.size() - 1), steps.size());
    return new Breakdown(median(kept, m -> m.get("step_ms").asDouble()), median(kept, m -> m.get("compute_ms").asDouble()),
        median(kept, m -> m.get("comm_ms").asDouble()), median(kept, m -> m.get("zero").get("gather_wait_ms").asDouble()),
        median(kept, m -> m.get("zero").get("reduce_wait_ms").asDouble()),
        median(kept, m -> m.get("zero").get("param_gather_wait_ms").asDouble()), median(kept, m -> m.get("zero").get("gathers").asDouble()),
        median(kept, m -> m.get("zero").get("gathered_mib").asDouble()));
  }

  private static double median(List<JsonNode> steps, ToDoubleFunction<JsonNode> f) {
    return Stats.median(steps.stream().mapToDouble(f).toArray());
  }

  private static double[] of(Breakdown[] runs, ToDoubleFunction<Breakdown> f) {
    return java.util.Arrays.stream(runs).mapToDouble(f).toArray();
  }

  public static List<BenchRow> rows(Result r) {
    List<BenchRow> rows = new ArrayList<>();
    double[] base = of(r.runs()[0], Breakdown::stepMs);
    String[] targets = {"", "≤ 1.05", "≤ 1.15"};
    for (int i = 1; i < STAGES.length; i++) {
      double[] ms = of(r.runs()[i], Breakdown::stepMs);
      rows.add(BenchRow.paired("zero", "dp=2 step_ms: zero " + STAGES[i] + " vs zero 0 (rotated per round), " + r.config().label(),
          Stats.median(ms), Stats.median(base), "ms", Stats.ratios(ms, base), targets[i], "pairs: the runs of one round"));
    }
    for (int i = 0; i < STAGES.length; i++) {
      Breakdown[] b = r.runs()[i];
      double step = Stats.median(of(b, Breakdown::stepMs)), comm = Stats.median(of(b, Breakdown::commMs));
      rows.add(BenchRow.of("zero", "dp=2 zero " + STAGES[i] + ": exposed communication per step vs step_ms, " + r.config().label(),
          comm, step, "ms", "(report)", String.format(Locale.ROOT,
              "medians over rounds: compute %.0f, comm %.0f (gather wait %.0f, reduction wait %.0f, param gather wait %.0f) ms; "
                  + "%.0f gathers, %.1f MiB gathered per step", Stats.median(of(b, Breakdown::computeMs)), comm,
              Stats.median(of(b, Breakdown::gatherWaitMs)), Stats.median(of(b, Breakdown::reduceWaitMs)),
              Stats.median(of(b, Breakdown::paramGatherWaitMs)), Stats.median(of(b, Breakdown::gathers)),
              Stats.median(of(b, Breakdown::gatheredMib)))));
    }
    return rows;
  }
}
