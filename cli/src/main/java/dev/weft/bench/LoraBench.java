package dev.weft.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.metrics.MetricsJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * LoRA (rank 16 on the seven projections) against a full fine-tune of the same Llama in the same
 * layout (issue 27): each round runs both, in an order swapped per round; a pair is one round's two
 * median {@code step_ms}. From the runs' {@code summary.json}: the gradient and optimizer-state bytes
 * a rank holds, LoRA's against the full fine-tune's. {@code --quick} runs a tiny Llama in-process.
 */
public final class LoraBench {
  static final int RANK = 16;

  public record Config(Trainer model, String label, boolean processes, int rounds, int steps, int warmSteps) {
    public static Config of(boolean quick) {
      if (quick) {
        Trainer tiny = Trainer.model("llama").seqLen(32).globalBatch(4).warmup(1).lr(1e-3).seed(7);
        return new Config(tiny, "Llama tiny (4 layers h=64) seq 32 batch 4, in-process", false, 1, 4, 1);
      }
      return new Config(realistic(), "Llama 2 layers h=1024 (ffn 2816, 16 heads, 4 kv heads) with Llama 2's vocab 32000,"
          + " seq 64 batch 4 (128 tokens per rank) fp32, dp=2 as 2 processes × 1 thread", true, 3, 6, 2);
    }
  }

  /**
   * A fine-tune's proportions at a size this machine steps in seconds: a real vocabulary and width (as a 1B
   * model's embedding and head are a real share of it), two layers, short sequences.
   */
  static Trainer realistic() {
    return Trainer.model("llama").set("model.config.hidden_size", 1024).set("model.config.intermediate_size", 2816)
        .set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 16)
        .set("model.config.num_key_value_heads", 4).set("model.config.vocab_size", 32000)
        .seqLen(64).globalBatch(4).warmup(2).lr(1e-4).seed(7);
  }

  /** One run: median step, compute and exposed-communication times (ms) after the warm-up steps; the rank's gradient + optimizer-state bytes. */
  public record Run(double stepMs, double computeMs, double commMs, double stateBytes) {}

  /** {@code lora[round]}, {@code full[round]}. */
  public record Result(Config config, Run[] lora, Run[] full) {}

  private LoraBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      var runs = Interleaved.rounds(c.rounds(), dir, "lora", "full", (isLora, run) -> {
        Trainer t = c.model().steps(c.steps()).dataParallel(2).runDir(run).lora(isLora ? RANK : 0, 2 * RANK); // rank 0: off
        if (c.processes()) ZeroStepBench.launch(t.toSpec(), run);
        else t.fit();
        ZeroStepBench.Breakdown b = ZeroStepBench.breakdown(run.resolve("metrics.jsonl"), c.warmSteps());
        return new Run(b.stepMs(), b.computeMs(), b.commMs(), stateBytes(run));
      });
      return new Result(c, runs.first().toArray(Run[]::new), runs.second().toArray(Run[]::new));
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  private static double stateBytes(Path run) {
    try {
      JsonNode m = MetricsJson.MAPPER.readTree(run.resolve("summary.json").toFile()).get("memory");
      return m.get("gradients").asDouble() + m.get("optimizer_state").asDouble();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double median(Run[] runs, java.util.function.ToDoubleFunction<Run> f) {
    return Stats.median(java.util.Arrays.stream(runs).mapToDouble(f).toArray());
  }

  public static List<BenchRow> rows(Result r) {
    double[] lora = java.util.Arrays.stream(r.lora()).mapToDouble(Run::stepMs).toArray();
    double[] full = java.util.Arrays.stream(r.full()).mapToDouble(Run::stepMs).toArray();
    String where = String.format(Locale.ROOT, "medians over rounds: LoRA compute %.0f + comm %.0f ms, full compute %.0f + comm %.0f ms",
        median(r.lora(), Run::computeMs), median(r.lora(), Run::commMs), median(r.full(), Run::computeMs), median(r.full(), Run::commMs));
    double loraBytes = r.lora()[0].stateBytes(), fullBytes = r.full()[0].stateBytes();
    return List.of(
        BenchRow.paired("lora", "step_ms: LoRA rank " + RANK + " vs full fine-tune (swapped per round), " + r.config().label(),
            Stats.median(lora), Stats.median(full), "ms", Stats.ratios(lora, full), "≤ 0.6", "pairs: the runs of one round; " + where),
        BenchRow.of("lora", "gradient + optimizer-state bytes per rank: LoRA rank " + RANK + " vs full fine-tune, " + r.config().label(),
            loraBytes, fullBytes, "B", "≤ 0.03", String.format(Locale.ROOT, "exact (summary.json memory): %.0f vs %.0f bytes",
                loraBytes, fullBytes)));
  }
}
