package dev.weft.bench;

import dev.weft.Trainer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Context parallelism (issue 29): the same Llama batch at a long sequence trained with cp=2 (ring attention,
 * two ranks) and cp=1, in an order swapped per round; a pair is one round's two median {@code step_ms}. The
 * exposed ring communication is cp=2's median {@code comm_ms} (the ring waits attention did not hide, the loss
 * reduction and the cp gradient sum). {@code --quick} runs a tiny Llama in-process at sequence 256.
 */
public final class CpBench {
  public record Config(Trainer model, String label, boolean processes, int rounds, int steps, int warmSteps) {
    public static Config of(boolean quick) {
      Trainer llama = Trainer.model("llama").set("model.config.hidden_size", 128).set("model.config.intermediate_size", 344)
          .set("model.config.num_hidden_layers", 2).set("model.config.num_attention_heads", 4)
          .set("model.config.num_key_value_heads", 2).globalBatch(1).microBatches(1).warmup(1).lr(1e-3).seed(7);
      if (quick) return new Config(llama.seqLen(256), "Llama (2 layers h=128, GQA 4/2) seq 256 batch 1, in-process", false, 1, 3, 1);
      return new Config(llama.seqLen(2048), "Llama (2 layers h=128, GQA 4/2) seq 2048 batch 1 fp32, ranks as processes", true, 3, 6, 2);
    }
  }

  /** {@code cp2[round]}, {@code cp1[round]}. */
  public record Result(Config config, ZeroStepBench.Breakdown[] cp2, ZeroStepBench.Breakdown[] cp1) {}

  private CpBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      ZeroStepBench.Breakdown[] cp2 = new ZeroStepBench.Breakdown[c.rounds()], cp1 = new ZeroStepBench.Breakdown[c.rounds()];
      for (int r = 0; r < c.rounds(); r++) {
        for (int k = 0; k < 2; k++) {
          boolean split = (k + r) % 2 == 0;
          Path run = dir.resolve("r" + r + (split ? "-cp2" : "-cp1"));
          Trainer t = c.model().steps(c.steps()).contextParallel(split ? 2 : 1).runDir(run);
          if (c.processes()) ZeroStepBench.launch(t.toSpec(), run);
          else t.fit();
          ZeroStepBench.Breakdown b = ZeroStepBench.breakdown(run.resolve("metrics.jsonl"), c.warmSteps());
          if (split) cp2[r] = b; else cp1[r] = b;
        }
      }
      return new Result(c, cp2, cp1);
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  public static List<BenchRow> rows(Result r) {
    double[] two = Arrays.stream(r.cp2()).mapToDouble(ZeroStepBench.Breakdown::stepMs).toArray();
    double[] one = Arrays.stream(r.cp1()).mapToDouble(ZeroStepBench.Breakdown::stepMs).toArray();
    double[] comm = Arrays.stream(r.cp2()).mapToDouble(ZeroStepBench.Breakdown::commMs).toArray();
    return List.of(
        BenchRow.paired("cp", "step_ms: cp=2 (ring) vs cp=1 (swapped per round), " + r.config().label(),
            Stats.median(two), Stats.median(one), "ms", Stats.ratios(two, one), "≤ 1.15", "pairs: the runs of one round"),
        BenchRow.of("cp", "exposed communication per step at cp=2 (ring waits, loss and cp gradient sums) vs its step, " + r.config().label(),
            Stats.median(comm), Stats.median(two), "ms", "report", String.format(Locale.ROOT, "median comm_ms of %d runs", comm.length)));
  }
}
