package dev.weft.bench;

import dev.weft.Trainer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.data.Npy;
import dev.weft.data.TokenWidth;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Expert parallelism (issue 29): the same Mixtral-like batch trained at dp=2 with its experts split over ep=2 ranks
 * (tokens dispatched and combined by all-to-all) and whole on each rank (ep=1), the order swapped per round; a pair
 * is one round's two median {@code step_ms}. Three routings, each its own row with the load imbalance it gave (the
 * busier ep rank's expert rows over the mean): the headline routes every token round-robin over the experts
 * ({@code router_force_balance}, as Megatron's benchmarks force load balancing) on random tokens, so the ratio is
 * ep's own cost; then the router's own choice on random tokens and on the arithmetic corpus (14 byte values), where
 * a randomly initialised router sends most rows to a few experts and ep=2 waits at every all-to-all for the rank
 * that holds them (ep=1 runs every expert on each rank, so it never waits). A last row counts the data-parallel
 * gradient bytes reduced per step (ep=2 reduces no expert over dp). {@code --quick}: a tiny model in-process, the
 * headline routing only.
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

  /** The batch and its routing: forced balanced on random tokens (the headline), the router's own on random tokens or the arithmetic corpus. */
  public enum Routing {
    BALANCED("random tokens, routing forced balanced"), ROUTER("random tokens, the router's own routing"),
    ARITHMETIC("arithmetic corpus, the router's own routing (skewed)");

    final String label;

    Routing(String label) { this.label = label; }
  }

  /**
   * One run: median step, the data-parallel gradient MiB reduced per step, and the median over the measured steps
   * of the busiest ep=2 rank's expert rows over the mean (what ep=2 would wait for, read from the same routing).
   */
  public record Run(double stepMs, double reducedMib, double imbalance) {}

  /** {@code ep2[round]}, {@code ep1[round]}. */
  public record Result(Config config, Routing routing, Run[] ep2, Run[] ep1) {}

  private static final int VOCAB = 256; // the mixtral factory's default (byte tokens)

  private MoeBench() {}

  public static Result measure(Config c, Routing routing) {
    Path dir = StepBench.tempDir();
    try {
      Trainer model = c.model(); // a value: the branches below leave the config's Trainer as it is
      if (routing != Routing.ARITHMETIC) model = model.data("npy:" + randomTokens(dir.resolve("random-tokens.npy")));
      if (routing == Routing.BALANCED) model = model.set("model.config.router_force_balance", true);
      Trainer base = model;
      var runs = Interleaved.rounds(c.rounds(), dir, "ep2", "ep1", (split, run) -> {
        Trainer t = base.steps(c.steps()).expertParallel(split ? 2 : 1).runDir(run);
        if (c.processes()) ZeroStepBench.launch(t.toSpec(), run);
        else t.fit();
        List<JsonNode> steps = ZeroStepBench.steps(run.resolve("metrics.jsonl"));
        return new Run(ZeroStepBench.breakdown(steps, c.warmSteps()).stepMs(), reducedMib(steps), imbalance(steps, c.warmSteps()));
      });
      return new Result(c, routing, runs.first().toArray(Run[]::new), runs.second().toArray(Run[]::new));
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** Enough uniformly random tokens (fixed seed) for any run of the bench. */
  private static Path randomTokens(Path file) {
    java.util.Random r = new java.util.Random(29);
    Npy.write(file, TokenWidth.UINT16, r.ints(1 << 18, 0, VOCAB).toArray());
    return file;
  }

  /** The last step's gradient MiB reduced over dp (the same every step: a count, not a timing). */
  private static double reducedMib(List<JsonNode> steps) {
    return steps.get(steps.size() - 1).get("zero").get("reduced_mib").asDouble();
  }

  /** Per measured step: the expert rows of the busier half of the experts (ep=2's two ranks) over the mean half. */
  private static double imbalance(List<JsonNode> steps, int warm) {
    double[] ratios = steps.stream().skip(warm).mapToDouble(n -> {
      int experts = 0;
      while (n.has("expert_load_" + experts)) experts++;
      double first = 0, second = 0;
      for (int e = 0; e < experts; e++) {
        if (e < experts / 2) first += n.get("expert_load_" + e).asDouble();
        else second += n.get("expert_load_" + e).asDouble();
      }
      return first + second == 0 ? 1 : Math.max(first, second) / ((first + second) / 2);
    }).toArray();
    return ratios.length == 0 ? Double.NaN : Stats.median(ratios);
  }

  /** The step rows of one or more results (the first row's target is the issue's), then the gradient bytes. */
  public static List<BenchRow> rows(Result... results) {
    List<BenchRow> rows = new java.util.ArrayList<>();
    for (Result r : results) {
      double[] two = Arrays.stream(r.ep2()).mapToDouble(Run::stepMs).toArray();
      double[] one = Arrays.stream(r.ep1()).mapToDouble(Run::stepMs).toArray();
      double imbalance = Stats.median(Arrays.stream(r.ep2()).mapToDouble(Run::imbalance).toArray());
      rows.add(BenchRow.paired("moe", "step_ms: ep=2 vs ep=1 (swapped per round), " + r.routing().label + ", " + r.config().label(),
          Stats.median(two), Stats.median(one), "ms", Stats.ratios(two, one), r.routing() == Routing.BALANCED ? "≤ 1.15" : "report",
          String.format(java.util.Locale.ROOT, "pairs: the runs of one round; ep rank load imbalance %.2f (the step's rows, all MoE layers together)", imbalance)));
    }
    Result r = results[0];
    rows.add(BenchRow.of("moe", "gradient MiB reduced over dp per step: ep=2 vs ep=1, " + r.config().label(),
        r.ep2()[0].reducedMib(), r.ep1()[0].reducedMib(), "MiB", "report",
        "a count: at ep=2 = dp each expert's edp group is one rank"));
    return rows;
  }
}
