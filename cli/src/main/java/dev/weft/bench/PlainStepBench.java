package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.data.ArithmeticCorpus;
import dev.weft.data.Batches;
import dev.weft.data.TokenSource;
import dev.weft.launch.JavaCommand;
import dev.weft.spec.TrainSpec;
import dev.weft.train.Optimizers;
import dev.weft.util.NativeThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Optimizer;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorVector;
import org.bytedeco.pytorch.global.torch;

/**
 * One rank's training step through Weft ({@code Trainer...fit()}, the median of its {@code step_ms}) against
 * {@link PlainModel}, a loop written by hand on libtorch with none of Weft's model classes (libtorch's AdamW and
 * {@code clip_grad_norm_} at the same settings), on GPT small, a GPT and a Llama at vocabulary 32000, and that Llama
 * under LoRA r16 on all seven projections. Each side runs in a JVM of its own, the two alternating (A B, then B A),
 * so they never share a heap, a JIT or an allocator; a pair is one round's two runs, the row the median pair ratio.
 */
public final class PlainStepBench {
  /** The shapes, {@code rounds} pairs each of {@code steps} measured steps after {@code warmSteps}, on {@code threads}. */
  public record Config(List<PlainModel.Shape> shapes, int rounds, int steps, int warmSteps, int threads, long runTimeoutS) {
    public static Config of(boolean quick) {
      int threads = NativeThreads.perRank(1);
      if (quick) return new Config(List.of(new PlainModel.Shape("gpt-tiny", false, 2, 64, 4, 4, 256, 256, 32, 4, 0)), 1, 2, 1, threads, 300);
      return new Config(List.of(
          new PlainModel.Shape("gpt-small", false, 8, 512, 8, 8, 2048, 256, 256, 8, 0),
          new PlainModel.Shape("gpt-32k", false, 2, 1024, 16, 16, 4096, 32000, 128, 4, 0),
          new PlainModel.Shape("llama-32k", true, 2, 1024, 16, 4, 2816, 32000, 128, 4, 0),
          new PlainModel.Shape("llama-32k-lora16", true, 2, 1024, 16, 4, 2816, 32000, 128, 4, 16)), 3, 6, 2, threads, 1800);
    }
  }

  /** Per shape, per round: the two sides' median step ms. */
  public record Result(Config config, List<double[]> weftMs, List<double[]> plainMs) {}

  private PlainStepBench() {}

  public static Result measure(Config c) {
    List<double[]> weft = new ArrayList<>(), plain = new ArrayList<>();
    Path dir = StepBench.tempDir();
    try {
      for (PlainModel.Shape s : c.shapes()) {
        double[] w = new double[c.rounds()], p = new double[c.rounds()];
        for (int r = 0; r < c.rounds(); r++) {
          boolean weftFirst = r % 2 == 0;
          double first = child(c, s, weftFirst ? "weft" : "plain", dir.resolve(s.name() + "-" + r + "a"));
          double second = child(c, s, weftFirst ? "plain" : "weft", dir.resolve(s.name() + "-" + r + "b"));
          w[r] = weftFirst ? first : second;
          p[r] = weftFirst ? second : first;
        }
        weft.add(w);
        plain.add(p);
      }
    } finally {
      StepBench.deleteTree(dir);
    }
    return new Result(c, weft, plain);
  }

  public static List<BenchRow> rows(Result r) {
    List<BenchRow> rows = new ArrayList<>();
    for (int i = 0; i < r.config().shapes().size(); i++) {
      PlainModel.Shape s = r.config().shapes().get(i);
      String what = String.format(Locale.ROOT, "one rank, %s (%d layers, h=%d, vocab %d, seq %d, batch %d%s), %d threads, "
          + "separate processes: Weft step_ms vs a hand-written libtorch loop", s.name(), s.layers(), s.hidden(), s.vocab(),
          s.seqLen(), s.batch(), s.loraRank() > 0 ? ", LoRA r" + s.loraRank() : "", r.config().threads());
      double[] w = r.weftMs().get(i), p = r.plainMs().get(i);
      rows.add(BenchRow.paired("step", what, Stats.median(w), Stats.median(p), "ms", Stats.ratios(w, p), "≤ 1.03",
          r.config().steps() + " measured steps a run, pairs are rounds"));
    }
    return rows;
  }

  /** One side in a JVM of its own; its median step ms. */
  private static double child(Config c, PlainModel.Shape s, String side, Path out) {
    List<String> cmd = JavaCommand.of(List.of(PlainStepBench.class.getName(), side, s.name(), String.valueOf(s.llama()),
        String.valueOf(s.layers()), String.valueOf(s.hidden()), String.valueOf(s.heads()), String.valueOf(s.kvHeads()),
        String.valueOf(s.ffn()), String.valueOf(s.vocab()), String.valueOf(s.seqLen()), String.valueOf(s.batch()),
        String.valueOf(s.loraRank()), String.valueOf(c.steps()), String.valueOf(c.warmSteps()), String.valueOf(c.threads()),
        out.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("OMP_WAIT_POLICY", "PASSIVE");
    pb.environment().putAll(dev.weft.launch.Allocator.workerEnv()); // the allocator Weft's workers get: a like-for-like pair
    Path log = out.resolveSibling(out.getFileName() + ".log");
    pb.redirectOutput(log.toFile());
    try {
      Process p = pb.start();
      if (!p.waitFor(c.runTimeoutS(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("step bench: the " + side + " run of " + s.name() + " took over " + c.runTimeoutS() + " s");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("step bench: the " + side + " run of " + s.name() + " failed; log:\n"
            + Files.readString(log, StandardCharsets.UTF_8));
      }
      return Double.parseDouble(Files.readString(out).trim().split(" ")[0]);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a step bench run", e);
    }
  }

  /** The child: {@code weft|plain name llama layers hidden heads kvHeads ffn vocab seqLen batch loraRank steps warm threads out}. */
  public static void main(String[] a) throws IOException {
    int i = 1;
    PlainModel.Shape s = new PlainModel.Shape(a[i++], Boolean.parseBoolean(a[i++]), Integer.parseInt(a[i++]), Integer.parseInt(a[i++]),
        Integer.parseInt(a[i++]), Integer.parseInt(a[i++]), Integer.parseInt(a[i++]), Integer.parseInt(a[i++]), Integer.parseInt(a[i++]),
        Integer.parseInt(a[i++]), Integer.parseInt(a[i++]));
    int steps = Integer.parseInt(a[i++]), warm = Integer.parseInt(a[i++]), threads = Integer.parseInt(a[i++]);
    Path out = Path.of(a[i]);
    NativeThreads.configure(threads);
    Trainer trainer = trainer(s, warm + steps);
    long[] cpu = new long[2]; // process CPU ns at the end of the warm steps and at the end: load-independent beside wall time
    double[] ms = "weft".equals(a[0]) ? weft(trainer, warm, steps, out, cpu) : plain(s, trainer.toSpec().train(), warm, steps, cpu);
    Files.writeString(out, Stats.median(ms) + " " + (cpu[1] - cpu[0]) / 1e6 / steps);
    System.exit(0); // the Weft side's non-daemon threads must not keep the child alive
  }

  /** The Weft side of a shape, on its presets: everything else (clipping, AdamW, schedule) as a user gets it. */
  static Trainer trainer(PlainModel.Shape s, int steps) {
    Trainer t = s.llama() ? Trainer.model("llama").set("model.config.hidden_size", s.hidden()).set("model.config.num_hidden_layers", s.layers())
        .set("model.config.num_attention_heads", s.heads()).set("model.config.num_key_value_heads", s.kvHeads())
        .set("model.config.intermediate_size", s.ffn()).set("model.config.vocab_size", s.vocab())
        : Trainer.model("gpt").set("model.config.layers", s.layers()).set("model.config.hidden", s.hidden())
        .set("model.config.heads", s.heads()).set("model.config.vocab", s.vocab()).set("model.config.mlpRatio", s.ffn() / s.hidden());
    if (s.loraRank() > 0) t = t.lora(s.loraRank(), 2.0 * s.loraRank());
    return t.seqLen(s.seqLen()).globalBatch(s.batch()).steps(steps);
  }

  private static double[] weft(Trainer trainer, int warm, int steps, Path out, long[] cpu) {
    List<Double> ms = new ArrayList<>();
    trainer.runDir(out.resolveSibling(out.getFileName() + "-run")).onStep((m, n) -> {
      if (m.step() > warm) ms.add(m.stepMs());
      if (m.step() == warm) cpu[0] = cpuNanos();
      if (m.step() == warm + steps) cpu[1] = cpuNanos();
    }).fit();
    return ms.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static double[] plain(PlainModel.Shape s, TrainSpec t, int warm, int steps, long[] cpu) {
    PlainModel model = new PlainModel(s, t.seed());
    TensorVector params = model.trainable();
    Optimizer opt = Optimizers.create(t, params);
    TokenSource data = new ArithmeticCorpus(t.seed());
    double[] ms = new double[steps];
    for (int step = 0; step < warm + steps; step++) {
      if (step == warm) cpu[0] = cpuNanos();
      long t0 = System.nanoTime();
      try (PointerScope scope = new PointerScope()) {
        Batches.Batch b = Batches.make(data, (long) step * s.batch(), s.batch(), s.seqLen());
        Tensor loss = model.loss(b.tokens(), b.targets());
        loss.backward();
        if (t.clipGradNorm() > 0) torch.clip_grad_norm_(params, t.clipGradNorm());
        opt.step();
        opt.zero_grad();
        loss.item_double();
      }
      if (step >= warm) ms[step - warm] = (System.nanoTime() - t0) / 1e6;
    }
    cpu[1] = cpuNanos();
    return ms;
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
