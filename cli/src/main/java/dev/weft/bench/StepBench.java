package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.data.ArithmeticCorpus;
import dev.weft.data.Batches;
import dev.weft.data.TokenSource;
import dev.weft.models.gpt.Gpt;
import dev.weft.models.gpt.GptConfig;
import dev.weft.models.layers.DenseLayers;
import dev.weft.spec.TrainSpec;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.GradClipper;
import dev.weft.train.Optimizers;
import dev.weft.util.NativeThreads;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Optimizer;
import org.bytedeco.pytorch.Tensor;

/**
 * One-rank training step of the reference GPT through Weft ({@code Trainer...fit()}, its per-step
 * {@code step_ms}) against a plain libtorch loop over the same model in the same JVM and thread:
 * the same {@link Gpt} on {@link DenseLayers}, the same AdamW from {@link Optimizers}, batches from
 * {@link Batches#make}; per step forward, backward, {@code step}, {@code zero_grad} and the loss read
 * back, inside a {@link PointerScope}.
 *
 * <p>The two alternate step by step (A/B/A/B): Weft's step listener, which runs on the training
 * thread after each Weft step and outside its step_ms, runs one plain step, so load from other
 * processes hits both alike. A third variant, the plain loop plus Weft's gradient-norm/clip pass
 * ({@link GradClipper}), attributes that part of any difference; plain and plain+clip swap order
 * every step. The first {@code warmSteps} of each are dropped.
 */
public final class StepBench {
  /** {@code steps} measured steps of each variant after {@code warmSteps}; threads of the one rank. */
  public record Config(String size, int seqLen, int batch, int steps, int warmSteps, int threads) {
    /** GPT small (seq 256, batch 8: 25.6 M parameters) for quoting; tiny for {@code --quick}. */
    public static Config of(boolean quick) {
      return quick ? new Config("tiny", 64, 16, 4, 1, NativeThreads.perRank(1))
          : new Config("small", 256, 8, 16, 2, NativeThreads.perRank(1));
    }
  }

  /**
   * Per measured step, in ms: Weft's step_ms, the plain step, the plain step with the grad-norm pass,
   * and Weft's whole period from one step to the next (step_ms plus the metrics line and bookkeeping
   * outside it; the plain steps run in between are not counted).
   */
  public record Result(Config config, GptConfig model, double[] weftMs, double[] plainMs, double[] plainClipMs,
                       double[] weftPeriodMs) {
    public double weftMedianMs() { return Stats.median(weftMs); }
    public double plainMedianMs() { return Stats.median(plainMs); }
    public long tokensPerStep() { return (long) config.batch() * config.seqLen(); }
    /** Model FLOP/s of a step taking {@code ms}. */
    public double modelFlopsPerS(double ms) { return model.trainingFlopsPerToken() * tokensPerStep() / (ms / 1000); }
  }

  private StepBench() {}

  public static Result measure(Config c) {
    int total = c.warmSteps() + c.steps();
    Trainer trainer = Trainer.model("gpt").size(c.size()).seqLen(c.seqLen()).globalBatch(c.batch()).steps(total);
    TrainingSpec spec = trainer.toSpec();
    GptConfig model = GptConfig.from(spec.model().config(), c.seqLen());
    NativeThreads.configure(c.threads());
    PlainLoop plain = new PlainLoop(spec.train(), model, c, false);
    PlainLoop plainClip = new PlainLoop(spec.train(), model, c, true);
    List<Double> weft = new ArrayList<>(), p = new ArrayList<>(), pc = new ArrayList<>(), period = new ArrayList<>();
    long[] lastEnd = {0};
    Path dir = tempDir();
    try {
      trainer.runDir(dir).onStep((m, n) -> {
        long now = System.nanoTime();
        boolean measured = m.step() > c.warmSteps();
        if (measured) {
          weft.add(m.stepMs());
          period.add((now - lastEnd[0]) / 1e6);
        }
        double a, b;
        if (m.step() % 2 == 0) {
          a = plain.step();
          b = plainClip.step();
        } else {
          b = plainClip.step();
          a = plain.step();
        }
        if (measured) {
          p.add(a);
          pc.add(b);
        }
        lastEnd[0] = System.nanoTime();
      }).fit();
    } finally {
      deleteTree(dir);
    }
    return new Result(c, model, array(weft), array(p), array(pc), array(period));
  }

  /** The plain libtorch loop over its own copy of the model. */
  private static final class PlainLoop {
    final TrainSpec t;
    final Config c;
    final boolean gradNorm;
    final Gpt model;
    final Optimizer opt;
    final TokenSource data;
    long step;

    PlainLoop(TrainSpec t, GptConfig cfg, Config c, boolean gradNorm) {
      this.t = t;
      this.c = c;
      this.gradNorm = gradNorm;
      model = new Gpt(cfg, new DenseLayers(t.seed()));
      opt = Optimizers.create(t, model.parameters().tensors());
      data = new ArithmeticCorpus(t.seed());
    }

    /** One step; returns its milliseconds. */
    double step() {
      long t0 = System.nanoTime();
      try (PointerScope scope = new PointerScope()) {
        Batches.Batch b = Batches.make(data, step++ * c.batch(), c.batch(), c.seqLen());
        Tensor loss = model.loss(b.tokens(), b.targets());
        loss.backward();
        if (gradNorm) GradClipper.clip(model.parameters().list(), t.clipGradNorm(), null);
        opt.step();
        opt.zero_grad();
        loss.item_double();
      }
      return (System.nanoTime() - t0) / 1e6;
    }
  }

  public static List<BenchRow> rows(Result r) {
    Config c = r.config();
    String shape = String.format(Locale.ROOT, "GPT %s (%d layers, h=%d, seq %d, batch %d), %d threads",
        c.size(), r.model().layers(), r.model().hidden(), c.seqLen(), c.batch(), c.threads());
    List<BenchRow> rows = new ArrayList<>();
    rows.add(BenchRow.paired("step", "step time, " + shape + ": Weft step_ms vs plain libtorch loop", r.weftMedianMs(),
        r.plainMedianMs(), "ms", Stats.ratios(r.weftMs(), r.plainMs()), "≤ 1.03", ""));
    rows.add(BenchRow.paired("step", "Weft step period (step_ms + metrics line, between steps) vs plain loop",
        Stats.median(r.weftPeriodMs()), r.plainMedianMs(), "ms", Stats.ratios(r.weftPeriodMs(), r.plainMs()), "(report)", ""));
    rows.add(BenchRow.paired("step", "plain loop + Weft's grad-norm/clip pass vs plain loop", Stats.median(r.plainClipMs()),
        r.plainMedianMs(), "ms", Stats.ratios(r.plainClipMs(), r.plainMs()), "(attribution)", ""));
    return rows;
  }

  private static double[] array(List<Double> xs) { return xs.stream().mapToDouble(Double::doubleValue).toArray(); }

  static Path tempDir() {
    try {
      return Files.createTempDirectory("weft-bench-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
