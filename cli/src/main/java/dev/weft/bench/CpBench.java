package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.spec.CpMethod;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.metrics.MetricsJson;
import dev.weft.plan.MemoryPlan;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ArrayList;

/**
 * Context parallelism (issue 29): the same Llama batch at a long sequence trained with cp=1 and with cp=2 under
 * each method (all-gathered K/V, ring, all-to-all), the four runs of a round in an order rotated per round; a
 * pair is one round's two median {@code step_ms}. A method's exposed communication is its cp=2 median
 * {@code comm_ms} (the cp exchanges attention did not hide, the loss reduction and the cp gradient sum).
 * Ranks are always worker processes, {@code --quick} included (a tiny Llama at sequence 256, one round): the
 * activation figures are resident memory, which only a fresh process measures soundly (see ActivationProbe).
 */
public final class CpBench {
  public record Config(Trainer model, String label, int rounds, int steps, int warmSteps) {
    public static Config of(boolean quick) {
      Trainer llama = Trainer.model("llama").set("model.config.hidden_size", 128).set("model.config.intermediate_size", 344)
          .set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 4)
          .set("model.config.num_key_value_heads", 2).globalBatch(1).microBatches(1).warmup(1).lr(1e-3).seed(7);
      if (quick) return new Config(llama.seqLen(256), "Llama (2 layers h=128, GQA 4/2) seq 256 batch 1, ranks as processes", 1, 4, 1);
      // steps 2-4 measure activations (trim and barriers), so the timed steps start after them
      return new Config(llama.seqLen(2048), "Llama (2 layers h=128, GQA 4/2) seq 2048 batch 1 fp32, ranks as processes", 3, 8, 4);
    }
  }

  /**
   * {@code cp1[round]}, and {@code cp2[method][round]} in {@link CpMethod} order; {@code act1}/{@code act2} alike: the
   * run's measured activation MiB per rank (median of its readings).
   */
  public record Result(Config config, ZeroStepBench.Breakdown[] cp1, ZeroStepBench.Breakdown[][] cp2, double[] act1, double[][] act2) {}

  private CpBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    CpMethod[] methods = CpMethod.values();
    int runs = methods.length + 1; // cp=1, then each method at cp=2
    try {
      ZeroStepBench.Breakdown[] cp1 = new ZeroStepBench.Breakdown[c.rounds()];
      ZeroStepBench.Breakdown[][] cp2 = new ZeroStepBench.Breakdown[methods.length][c.rounds()];
      double[] act1 = new double[c.rounds()];
      double[][] act2 = new double[methods.length][c.rounds()];
      for (int r = 0; r < c.rounds(); r++) {
        for (int k = 0; k < runs; k++) {
          int which = (k + r) % runs; // 0: cp=1
          String name = which == 0 ? "cp1" : methods[which - 1].spelling();
          Path run = dir.resolve("r" + r + "-" + name);
          Trainer t = c.model().steps(c.steps()).contextParallel(which == 0 ? 1 : 2).runDir(run);
          if (which > 0) t = t.set("parallel.cpMethod", name);
          ZeroStepBench.launch(t.toSpec(), run, dev.weft.train.ActivationProbe.WORKER_ENV);
          ZeroStepBench.Breakdown b = ZeroStepBench.breakdown(run.resolve("metrics.jsonl"), c.warmSteps());
          double act = activationMib(run.resolve("metrics.jsonl"));
          if (which == 0) {
            cp1[r] = b;
            act1[r] = act;
          } else {
            cp2[which - 1][r] = b;
            act2[which - 1][r] = act;
          }
        }
      }
      return new Result(c, cp1, cp2, act1, act2);
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** The run's measured activation MiB per rank: the median of metrics.jsonl's {@code activation_mib} readings, NaN without one. */
  static double activationMib(Path metrics) {
    List<Double> mib = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(metrics)) {
        JsonNode m = MetricsJson.MAPPER.readTree(line).get("activation_mib");
        if (m != null) mib.add(m.asDouble());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return mib.isEmpty() ? Double.NaN : Stats.median(mib.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** The plan's activation MiB of rank 0 for {@code t} (MemoryPlan), NaN where the model has no shape. */
  static double plannedMib(Trainer t) {
    return MemoryPlan.ranks(t.toSpec()).map(r -> r.get(0).activations() / (1 << 20)).orElse(Double.NaN);
  }

  public static List<BenchRow> rows(Result r) {
    double[] one = Arrays.stream(r.cp1()).mapToDouble(ZeroStepBench.Breakdown::stepMs).toArray();
    List<BenchRow> rows = new ArrayList<>();
    CpMethod[] methods = CpMethod.values();
    for (int m = 0; m < methods.length; m++) {
      String name = methods[m].spelling();
      double[] two = Arrays.stream(r.cp2()[m]).mapToDouble(ZeroStepBench.Breakdown::stepMs).toArray();
      double[] comm = Arrays.stream(r.cp2()[m]).mapToDouble(ZeroStepBench.Breakdown::commMs).toArray();
      rows.add(BenchRow.paired("cp", "step_ms: cp=2 (" + name + ") vs cp=1 (order rotated per round), " + r.config().label(),
          Stats.median(two), Stats.median(one), "ms", Stats.ratios(two, one), "≤ 1.15", "pairs: the runs of one round"));
      // each figure plans its own layout from the config's Trainer (a value: the config's stays as it is)
      double plan2 = plannedMib(r.config().model().contextParallel(2).set("parallel.cpMethod", name)), plan1 = plannedMib(r.config().model().contextParallel(1));
      double[] a2 = r.act2()[m];
      rows.add(BenchRow.of("cp", "measured activation MiB per rank, cp=2 (" + name + ") vs cp=1 (plan " + String.format(Locale.ROOT, "%.1f vs %.1f MiB: %.2f",
          plan2, plan1, plan2 / plan1) + "), " + r.config().label(), Stats.median(a2), Stats.median(r.act1()), "MiB", "≤ 0.6",
          String.format(Locale.ROOT, "medians of %d runs, each the median of its steps 2-4 (ActivationProbe)", a2.length)));
      rows.add(BenchRow.of("cp", "exposed communication per step at cp=2 (" + name + ": cp exchanges, loss and cp gradient sums) vs its step, "
          + r.config().label(), Stats.median(comm), Stats.median(two), "ms", "report", String.format(Locale.ROOT, "median comm_ms of %d runs", comm.length)));
    }
    return rows;
  }
}
