package dev.weft.bench;

import dev.weft.bench.PipelineBubbleBench.Measurement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Pipeline (issue 4), through {@link PipelineBubbleBench#measure}: stages as rank threads over Gloo
 * on the toy tanh stack; measured bubble (each stage's idle fraction from the executor's timeline,
 * median over steps, averaged over stages) against the theoretical (p−1)/(v·m + p−1) for 1F1B (v = 1)
 * and interleaved 1F1B (v = 2), and stage 0's peak kept activation bytes with recomputation against
 * without. Each round runs the four variants once; rows take the median over rounds. ZB-H1 against
 * 1F1B is {@link ZeroBubbleBench}.
 */
public final class PipelineBench {
  public record Config(int stages, int microBatches, int layers, int hidden, int batch, int steps, int rounds) {
    public static Config of(boolean quick) {
      return quick ? new Config(2, 8, 8, 64, 8, 1, 1) : new Config(2, 8, 8, 512, 64, 5, 3);
    }
  }

  /** One schedule with and without recomputation, per round. */
  public record Variant(String schedule, int virtualStages, List<Measurement> plain, List<Measurement> recompute) {}

  public record Result(Config config, List<Variant> variants) {}

  private PipelineBench() {}

  public static Result measure(Config c) {
    Variant f1b = new Variant("1f1b", 1, new ArrayList<>(), new ArrayList<>());
    Variant inter = new Variant("interleaved-1f1b", 2, new ArrayList<>(), new ArrayList<>());
    for (int r = 0; r < c.rounds(); r++) {
      for (Variant v : List.of(f1b, inter)) {
        for (boolean rc : new boolean[] {false, true}) {
          Measurement m = PipelineBubbleBench.measure(v.schedule(), c.stages(), c.microBatches(), v.virtualStages(), rc,
              c.layers(), c.hidden(), c.batch(), c.steps());
          (rc ? v.recompute() : v.plain()).add(m);
        }
      }
    }
    return new Result(c, List.of(f1b, inter));
  }

  public static List<BenchRow> rows(Result r) {
    Config c = r.config();
    String shape = String.format(Locale.ROOT, "p=%d m=%d, %d tanh layers [%d×%d]", c.stages(), c.microBatches(), c.layers(),
        c.batch(), c.hidden());
    List<BenchRow> rows = new ArrayList<>();
    for (Variant v : r.variants()) {
      String name = v.virtualStages() == 1 ? "1F1B" : "interleaved 1F1B v=" + v.virtualStages();
      for (boolean rc : new boolean[] {false, true}) {
        List<Measurement> ms = rc ? v.recompute() : v.plain();
        double[] bubbles = ms.stream().mapToDouble(Measurement::meanBubble).toArray();
        Measurement last = ms.get(ms.size() - 1);
        double theory = last.theory();
        rows.add(BenchRow.of("pipeline", String.format(Locale.ROOT, "%s%s, %s: measured bubble vs (p−1)/(v·m+p−1)", name,
                rc ? " + recompute" : "", shape), Stats.median(bubbles), theory, "", rc ? "(report)" : "≤ 1.5",
            String.format(Locale.ROOT, "median of %d rounds (%.3f–%.3f); last round per stage %s; forward spread (load) %s",
                bubbles.length, Stats.min(bubbles), Stats.max(bubbles), format(last.bubblePerStage()),
                format(ms.stream().mapToDouble(Measurement::forwardSpread).toArray()))));
      }
      double kept = v.recompute().get(0).peakKeptBytesStage0(), full = v.plain().get(0).peakKeptBytesStage0();
      rows.add(BenchRow.of("pipeline", name + ", " + shape + ": peak kept activation bytes (stage 0), recompute vs not",
          kept, full, "B", "< 1", "exact counts (StepResult.peakKeptBytes)"));
    }
    return rows;
  }

  private static String format(double[] xs) {
    return Arrays.toString(Arrays.stream(xs).mapToObj(x -> String.format(Locale.ROOT, "%.3f", x)).toArray());
  }
}
