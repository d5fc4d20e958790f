package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.bench.PipelineBubbleBench.Measurement;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * ZB-H1 against 1F1B (issue 29), the order swapped every round so load from other processes falls on
 * both: on the toy {@link TanhStack} with stages as rank threads (measured bubble from the executor's
 * timeline and the slowest stage's step span, at p=2 and, outside {@code --quick}, p=4), and outside
 * {@code --quick} a Llama at pp=2 as worker processes ({@code step_ms} of metrics.jsonl). A pair is one
 * round's two runs. Both schedules do the same arithmetic: B computes the input gradient and W each
 * linear's dW = dYᵀ·X, once each.
 */
public final class ZeroBubbleBench {
  public record Config(int[] stages, int microBatches, int layers, int hidden, int batch, int steps, int rounds,
                       Trainer processModel, String processLabel) {
    public static Config of(boolean quick) {
      if (quick) return new Config(new int[] {2}, 8, 8, 64, 8, 1, 1, null, "");
      Trainer llama = Trainer.model("llama").set("model.config.hidden_size", 256).set("model.config.intermediate_size", 512)
          .set("model.config.num_hidden_layers", 4).set("model.config.num_attention_heads", 4)
          .set("model.config.num_key_value_heads", 2).seqLen(128).globalBatch(8).microBatches(8).pipeline(2)
          .warmup(1).lr(1e-3).seed(7);
      return new Config(new int[] {2, 4}, 8, 8, 512, 64, 5, 5, llama,
          "Llama 4 layers h=256 seq 128 batch 8, pp=2 m=8, 2 processes");
    }
  }

  /** Per pipeline depth, each schedule's runs in round order. */
  public record Threads(int stages, List<Measurement> zb, List<Measurement> oneFOneB) {}

  /** {@code zb[round]}, {@code oneFOneB[round]}: median step_ms of each process run. */
  public record Processes(double[] zb, double[] oneFOneB) {}

  public record Result(Config config, List<Threads> threads, Processes processes) {}

  private ZeroBubbleBench() {}

  public static Result measure(Config c) {
    List<Threads> threads = new ArrayList<>();
    for (int p : c.stages()) {
      var runs = Interleaved.rounds(c.rounds(), Path.of("unused"), "zb-h1", "1f1b", (zb, dir) ->
          PipelineBubbleBench.measure(zb ? "zb-h1" : "1f1b", p, c.microBatches(), 1, false, c.layers(), c.hidden(), c.batch(), c.steps()));
      threads.add(new Threads(p, runs.first(), runs.second()));
    }
    return new Result(c, threads, c.processModel() == null ? null : processes(c));
  }

  private static Processes processes(Config c) {
    Path dir = StepBench.tempDir();
    try {
      int warm = 2;
      var runs = Interleaved.rounds(c.rounds(), dir, "zb-h1", "1f1b", (zb, run) -> {
        Trainer t = c.processModel().schedule(zb ? "zb-h1" : "1f1b").steps(warm + c.steps()).runDir(run);
        ZeroStepBench.launch(t.toSpec(), run);
        return ZeroStepBench.breakdown(run.resolve("metrics.jsonl"), warm).stepMs();
      });
      return new Processes(runs.first().stream().mapToDouble(Double::doubleValue).toArray(),
          runs.second().stream().mapToDouble(Double::doubleValue).toArray());
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  public static List<BenchRow> rows(Result r) {
    Config c = r.config();
    List<BenchRow> rows = new ArrayList<>();
    for (Threads t : r.threads()) {
      String shape = String.format(Locale.ROOT, "p=%d m=%d, %d tanh layers [%d×%d], rank threads", t.stages(), c.microBatches(),
          c.layers(), c.batch(), c.hidden());
      double[] zbBubble = t.zb().stream().mapToDouble(Measurement::meanBubble).toArray();
      double[] fBubble = t.oneFOneB().stream().mapToDouble(Measurement::meanBubble).toArray();
      double[] zbStep = t.zb().stream().mapToDouble(Measurement::medianStepSeconds).toArray();
      double[] fStep = t.oneFOneB().stream().mapToDouble(Measurement::medianStepSeconds).toArray();
      rows.add(BenchRow.paired("pipeline", "ZB-H1 vs 1F1B, " + shape + ": measured bubble", Stats.median(zbBubble),
          Stats.median(fBubble), "", Stats.ratios(zbBubble, fBubble), "< 1", "idle fraction per stage, mean over stages"));
      rows.add(BenchRow.paired("pipeline", "ZB-H1 vs 1F1B, " + shape + ": step time", Stats.median(zbStep) * 1e3,
          Stats.median(fStep) * 1e3, "ms", Stats.ratios(zbStep, fStep), "≤ 1", "slowest stage's median step span"));
    }
    if (r.processes() != null) {
      rows.add(BenchRow.paired("pipeline", "step_ms: ZB-H1 vs 1F1B (swapped per round), " + c.processLabel(),
          Stats.median(r.processes().zb()), Stats.median(r.processes().oneFOneB()), "ms",
          Stats.ratios(r.processes().zb(), r.processes().oneFOneB()), "≤ 1", "pairs: the runs of one round"));
    }
    return rows;
  }
}
