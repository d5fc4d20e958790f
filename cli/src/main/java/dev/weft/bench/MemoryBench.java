package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.checkpoint.DType;
import dev.weft.metrics.MetricsJson;
import dev.weft.models.hf.HfModelInit;
import dev.weft.models.hf.HfShards;
import dev.weft.plan.MemoryPlan;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Memory at the scale users bring (issue 43): LoRA over a random model shaped like a published one (written in bf16 by
 * {@code weft model init --like}), each run one worker process whose peak resident set (the OS's VmHWM, from
 * summary.json) is the measure: the frozen base held fp32 vs bf16 vs NF4; the head's loss over chunks vs the whole
 * logits at a long sequence (peak and step time); and {@code weft plan}'s total for each run against its peak.
 */
public final class MemoryBench {
  /**
   * {@code like}: the preset; {@code seq}: the base comparison's sequence; {@code lossSeq}: the loss comparison's, over
   * chunks of {@code chunk} tokens; {@code mergeLike}: the bf16 model a LoRA checkpoint is merged into; {@code
   * largerLike}: a larger preset whose base comparison runs too (null: none).
   */
  public record Config(String like, int seq, int lossSeq, int chunk, int rank, String label, String mergeLike, String largerLike) {
    public static Config of(boolean quick) {
      return quick ? new Config("smollm2-135m", 64, 512, 128, 8, "SmolLM2-135M shape, LoRA r8, dp=1, 1 process", "smollm2-135m", null)
          : new Config("qwen2.5-0.5b", 1024, 2048, 256, 16, "Qwen2.5-0.5B shape, LoRA r16, dp=1, 1 process", "llama-3.2-1b", "llama-3.2-1b");
    }
  }

  /**
   * One run: its peak RSS (bytes), median step (ms) after the first, the plan's total for its rank (bytes), and its
   * resident set as step 1 began (bytes: the runtime, weights, adapters and optimizer state the steps come on top of).
   */
  public record Run(double peakRss, double stepMs, double planned, double atStart) {}

  /** The merged export: its process's peak RSS, the largest tensor and the whole weights of the base (bytes). */
  public record Merge(double peakRss, double largestTensor, double weights) {}

  /** The loss comparison: each side's runs, round by round (interleaved, the order swapped every round). */
  public record Loss(List<Run> whole, List<Run> chunked) {}

  public record Result(Config config, Map<String, Run> runs, Loss loss, Merge merge) {}

  /** Rounds of the loss comparison (one whole-logits and one chunked run each, separate processes). */
  static final int LOSS_ROUNDS = 2;

  /** The loss chunk of the base comparison's runs. */
  static final int BASE_CHUNK = 128;

  private MemoryBench() {}

  private static Trainer lora(Config c, Path hf, String quantize, int seq) { return lora(c.like(), c, hf, quantize, seq); }

  private static Trainer lora(String like, Config c, Path hf, String quantize, int seq) {
    String type = HfModelInit.config(like, "--like").path("model_type").asText();
    return Trainer.model(type).pretrained(hf).lora(c.rank(), 2 * c.rank()).set("train.lora.quantize", quantize).seqLen(seq)
        .globalBatch(1).steps(3).warmup(1).lr(1e-4).seed(7);
  }

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      Path hf = dir.resolve("hf");
      HfModelInit.write(c.like(), hf, DType.BF16, 7, HfShards.DEFAULT_MAX_BYTES);
      Map<String, Trainer> runs = new LinkedHashMap<>();
      // the base comparison as a memory-minded run is set: each layer checkpointed (one unsplit rank: its input kept,
      // one layer's internals made again) and the loss over 128-token chunks, so that the step adds as little as it can;
      // the compressed bases under fp32 compute and under bf16 compute (QLoRA's recipe: products in bf16; and its double
      // quantisation of the scales)
      for (String q : List.of("none", "bf16", "nf4")) runs.put("base-" + q, base(c.like(), c, hf, q));
      for (String q : List.of("bf16", "nf4", "nf4-dq")) runs.put("base-" + q + "-bf16", base(c.like(), c, hf, q).set("precision.dtype", "bf16"));
      Map<String, Run> out = new LinkedHashMap<>();
      for (var e : runs.entrySet()) out.put(e.getKey(), run(e.getValue(), dir.resolve(e.getKey())));
      if (c.largerLike() != null) out.putAll(larger(c, dir.resolve("larger")));
      return new Result(c, out, loss(c, dir.resolve("loss")), merge(c, dir.resolve("merge")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** The base comparison's run of {@code like} over {@code hf} with its base held as {@code quantize} says. */
  private static Trainer base(String like, Config c, Path hf, String quantize) {
    return lora(like, c, hf, quantize, c.seq()).set("train.lossChunk", BASE_CHUNK).set("train.recompute", true);
  }

  /**
   * The fp32, bf16 and nf4 bases (the 16-bit ones under bf16 compute) at {@code largerLike}'s shape: where the
   * projections are most of the model, not the runtime and the 16-bit embedding every compressed base keeps.
   */
  static Map<String, Run> larger(Config c, Path dir) throws IOException {
    Path hf = dir.resolve("hf");
    HfModelInit.write(c.largerLike(), hf, DType.BF16, 7, HfShards.DEFAULT_MAX_BYTES);
    Map<String, Run> out = new LinkedHashMap<>();
    out.put("larger-none", run(base(c.largerLike(), c, hf, "none"), dir.resolve("none")));
    for (String q : List.of("bf16", "nf4")) {
      out.put("larger-" + q + "-bf16", run(base(c.largerLike(), c, hf, q).set("precision.dtype", "bf16"), dir.resolve(q)));
    }
    StepBench.deleteTree(hf);
    return out;
  }

  /** One worker process of {@code t} in {@code dir}: its peak RSS, median step after the first, the plan's total and its resident set at step 1. */
  static Run run(Trainer t, Path dir) {
    TrainingSpec spec = t.runDir(dir).toSpec();
    ZeroStepBench.launch(spec, dir);
    double step = ZeroStepBench.breakdown(dir.resolve("metrics.jsonl"), 1).stepMs();
    return new Run(memory(dir, "peak_rss"), step, MemoryPlan.ranks(spec).orElseThrow().get(0).total(), memory(dir, "resident_at_start"));
  }

  /**
   * The head's loss over chunks vs the whole logits at {@code lossSeq} tokens, interleaved rounds of separate processes,
   * over the preset cut to {@link #LOSS_LAYERS} layers (its vocabulary and width kept): the logits (whole: the logits and
   * log-softmax's output held, their two gradients at the backward's start, [seq, vocab] fp32 each) are then most of
   * the peak, as they are of a long-sequence step, and the pair fits the machine (all 24 layers' activations at 2,048
   * tokens are ~11 GiB at Qwen2.5-0.5B's width without recompute; cutting the layers, not recomputing them, keeps the
   * rows about the loss alone). The base is the default fp32 one, the head an ordinary parameter (a 16-bit held head
   * under fp32 compute makes its rows again per chunk: docs/performance.md rounds 8 and 9 measure that pair too).
   */
  static Loss loss(Config c, Path dir) throws IOException {
    Path hf = dir.resolve("hf");
    HfModelInit.write(c.like(), List.of("num_hidden_layers=" + LOSS_LAYERS), null, hf, DType.BF16, 7, HfShards.DEFAULT_MAX_BYTES);
    var pairs = Interleaved.rounds(LOSS_ROUNDS, dir, "chunked", "whole", (chunkedSide, run) ->
        run(lora(c, hf, "none", c.lossSeq()).set("train.lossChunk", chunkedSide ? c.chunk() : 0), run));
    return new Loss(pairs.second(), pairs.first());
  }

  /** Layers of the loss comparison's model. */
  static final int LOSS_LAYERS = 2;

  /**
   * {@code weft checkpoint export --format hf} of a one-step LoRA checkpoint over a bf16 {@code mergeLike} model, in a
   * JVM of its own: its peak RSS against the largest tensor and the model.
   */
  static Merge merge(Config c, Path dir) throws IOException {
    Path hf = dir.resolve("hf"), run = dir.resolve("run"), ckpt = dir.resolve("checkpoints");
    HfModelInit.Result base = HfModelInit.write(c.mergeLike(), hf, DType.BF16, 7, HfShards.DEFAULT_MAX_BYTES);
    // a bf16 frozen base and 16 tokens: the training that makes the checkpoint stays small
    TrainingSpec spec = lora(c.mergeLike(), c, hf, "bf16", 16).steps(1).warmup(0).checkpointDir(ckpt).checkpointEvery(1)
        .runDir(run).toSpec();
    ZeroStepBench.launch(spec, run);
    double peak = PeakRss.of(List.of("dev.weft.cli.WeftMain", "checkpoint", "export", ckpt.toString(), "--format", "hf",
        "-o", dir.resolve("merged").toString()), dir.resolve("export.log"), 3600);
    var shapes = dev.weft.models.hf.HfCheckpoint.open(hf, "--base");
    double largest = shapes.names().stream().mapToDouble(n -> {
      double b = shapes.dtype(n).bytes();
      for (long d : shapes.shape(n)) b *= d;
      return b;
    }).max().orElse(0);
    return new Merge(peak, largest, base.bytes());
  }

  /** {@code field} of summary.json's memory (bytes; 0 where absent). */
  private static double memory(Path run, String field) {
    try {
      return MetricsJson.MAPPER.readTree(run.resolve("summary.json").toFile()).get("memory").path(field).asDouble();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double[] peaks(List<Run> runs) { return runs.stream().mapToDouble(Run::peakRss).toArray(); }

  private static double[] steps(List<Run> runs) { return runs.stream().mapToDouble(Run::stepMs).toArray(); }

  private static String mib(double bytes) { return String.format(Locale.ROOT, "%.0f MiB", bytes / (1 << 20)); }

  /**
   * The peak of the {@code q} base against the fp32 base's, and what each held as step 1 began: a run's peak is that
   * plus what its steps add, so a ratio target is within reach only if the steps add at most target × the fp32 peak
   * less that start (printed; the 16-bit embedding every compressed base keeps and the runtime are in both).
   */
  private static void baseRows(List<BenchRow> rows, Map<String, Run> m, String prefix, String q, int seq, String label) {
    Run run = m.get(prefix + q), fp32 = m.get(prefix + "none");
    String base = q.replace("-bf16", "") + " base, " + (q.endsWith("-bf16") ? "bf16" : "fp32") + " compute";
    double target = q.startsWith("bf16") ? 0.6 : 0.4;
    String setting = "seq " + seq + ", recompute, loss chunk " + BASE_CHUNK + ", " + label;
    rows.add(BenchRow.of("memory", "peak RSS: " + base + " vs fp32 base, fp32 compute; " + setting, run.peakRss(), fp32.peakRss(), "B",
        "≤ " + target, mib(run.peakRss()) + " vs " + mib(fp32.peakRss())));
    rows.add(BenchRow.of("memory", "resident as step 1 began: " + base + " vs fp32 base, fp32 compute; " + setting, run.atStart(),
        fp32.atStart(), "B", "—", mib(run.atStart()) + " vs " + mib(fp32.atStart()) + "; the steps added " + mib(run.peakRss() - run.atStart())
            + " vs " + mib(fp32.peakRss() - fp32.atStart()) + "; ≤ " + target + " leaves them " + mib(target * fp32.peakRss() - run.atStart())));
  }

  public static List<BenchRow> rows(Result r) {
    Map<String, Run> m = r.runs();
    String l = r.config().label();
    Run fp32 = m.get("base-none");
    List<BenchRow> rows = new ArrayList<>();
    for (String q : List.of("bf16", "nf4", "bf16-bf16", "nf4-bf16", "nf4-dq-bf16")) baseRows(rows, m, "base-", q, r.config().seq(), l);
    if (r.config().largerLike() != null) {
      String shape = r.config().largerLike() + " shape, LoRA r" + r.config().rank() + ", dp=1, 1 process";
      for (String q : List.of("bf16-bf16", "nf4-bf16")) baseRows(rows, m, "larger-", q, r.config().seq(), shape);
    }
    Loss loss = r.loss();
    rows.add(BenchRow.paired("memory", "peak RSS: loss over " + r.config().chunk() + "-token chunks vs whole logits, seq " + r.config().lossSeq()
        + ", fp32 base, " + LOSS_LAYERS + " of its layers, " + l, Stats.median(peaks(loss.chunked())), Stats.median(peaks(loss.whole())), "B",
        Stats.ratios(peaks(loss.chunked()), peaks(loss.whole())), "≤ 0.6", "separate processes"));
    rows.add(BenchRow.paired("memory", "step_ms: loss over chunks vs whole logits, seq " + r.config().lossSeq() + ", " + LOSS_LAYERS + " of its layers, " + l,
        Stats.median(steps(loss.chunked())), Stats.median(steps(loss.whole())), "ms", Stats.ratios(steps(loss.chunked()), steps(loss.whole())),
        "≤ 1.10", "each run's median step after the first"));
    Merge g = r.merge();
    rows.add(BenchRow.of("memory", "peak RSS of weft checkpoint export --format hf (LoRA merged, one JVM) vs 1.5 GiB, bf16 "
        + r.config().mergeLike() + " shape", g.peakRss(), 1.5 * (1 << 30), "B", "≤ 1",
        mib(g.peakRss()) + "; largest tensor " + mib(g.largestTensor()) + ", weights " + mib(g.weights())));
    Map<String, Run> planned = new LinkedHashMap<>(m);
    for (int i = 0; i < loss.whole().size(); i++) {
      planned.put("loss-whole r" + i, loss.whole().get(i));
      planned.put("loss-chunked r" + i, loss.chunked().get(i));
    }
    for (var e : planned.entrySet()) {
      String shape = e.getKey().startsWith("larger-") ? r.config().largerLike() + " shape" : l;
      rows.add(BenchRow.of("memory", "weft plan's total vs measured peak RSS: " + e.getKey() + ", " + shape, e.getValue().planned(),
          e.getValue().peakRss(), "B", "0.9–1.1", mib(e.getValue().planned()) + " planned vs " + mib(e.getValue().peakRss())));
    }
    return rows;
  }
}
