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
      Trainer small = Trainer.model("llama").size("small").seqLen(256).globalBatch(8).warmup(2).lr(3e-4).seed(7);
      return new Config(small, "Llama small (8 layers h=512) seq 256 batch 8 fp32, dp=2 as 2 processes × 1 thread", true, 3, 7, 2);
    }
  }

  /** One run: median step time (ms) after the warm-up steps, and the rank's gradient + optimizer-state bytes. */
  public record Run(double stepMs, double stateBytes) {}

  /** {@code lora[round]}, {@code full[round]}. */
  public record Result(Config config, Run[] lora, Run[] full) {}

  private LoraBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      Run[] lora = new Run[c.rounds()], full = new Run[c.rounds()];
      for (int r = 0; r < c.rounds(); r++) {
        for (int k = 0; k < 2; k++) {
          boolean isLora = (k + r) % 2 == 0;
          Path run = dir.resolve("r" + r + (isLora ? "-lora" : "-full"));
          Trainer t = c.model().steps(c.steps()).dataParallel(2).runDir(run).lora(isLora ? RANK : 0, 2 * RANK); // rank 0: off
          if (c.processes()) ZeroStepBench.launch(t.toSpec(), run);
          else t.fit();
          Run measured = new Run(ZeroStepBench.breakdown(run.resolve("metrics.jsonl"), c.warmSteps()).stepMs(), stateBytes(run));
          if (isLora) lora[r] = measured; else full[r] = measured;
        }
      }
      return new Result(c, lora, full);
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

  public static List<BenchRow> rows(Result r) {
    double[] lora = java.util.Arrays.stream(r.lora()).mapToDouble(Run::stepMs).toArray();
    double[] full = java.util.Arrays.stream(r.full()).mapToDouble(Run::stepMs).toArray();
    double loraBytes = r.lora()[0].stateBytes(), fullBytes = r.full()[0].stateBytes();
    return List.of(
        BenchRow.paired("lora", "step_ms: LoRA rank " + RANK + " vs full fine-tune (swapped per round), " + r.config().label(),
            Stats.median(lora), Stats.median(full), "ms", Stats.ratios(lora, full), "≤ 0.6", "pairs: the runs of one round"),
        BenchRow.of("lora", "gradient + optimizer-state bytes per rank: LoRA rank " + RANK + " vs full fine-tune, " + r.config().label(),
            loraBytes, fullBytes, "B", "≤ 0.03", String.format(Locale.ROOT, "exact (summary.json memory): %.0f vs %.0f bytes",
                loraBytes, fullBytes)));
  }
}
