package dev.weft.bench;

import dev.weft.Trainer;
import dev.weft.comm.SoloCommunicator;
import dev.weft.data.ArithmeticCorpus;
import dev.weft.data.Batches;
import dev.weft.metrics.RunSummary;
import dev.weft.models.gpt.Gpt;
import dev.weft.models.gpt.GptConfig;
import dev.weft.models.layers.DenseLayers;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.spec.TrainSpec;
import dev.weft.train.Optimizers;
import dev.weft.util.NativeThreads;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Optimizer;
import org.bytedeco.pytorch.Tensor;

/**
 * ZeRO (issue 5), three parts.
 *
 * <ol>
 *   <li>Memory: per-rank bytes of parameters, gradients and Adam moments that {@code summary.json}
 *       reports ({@link RunSummary#memory()}, from {@link ShardedOptimizer#memory()}) for zero 0–3 of
 *       real in-process data-parallel runs, against the analytical ZeRO figures for N parameters:
 *       4N parameters, 4N gradients, 2×4N moments; stage ≥ 1 divides the moments by dp, stage ≥ 2 the
 *       gradients too, stage 3 the parameters too. The flat buckets pad to a multiple of dp, so the
 *       measured figure is at least the analytical one.
 *   <li>Step time of zero 1/2/3 against zero 0 at dp = 2: each round runs the four stages once, in an
 *       order rotated per round; a pair is zero k and zero 0 of the same round, each the run's median
 *       {@code step_ms}.
 *   <li>The fused optimizer step ({@link ShardedOptimizer#step}: a handful of vectorised passes per
 *       flat bucket) against libtorch's per-parameter AdamW ({@link Optimizers#create}) on two copies of
 *       the same GPT fed the same batches, so with the same gradients; only {@code step} is timed and
 *       the two alternate, swapping order every iteration.
 * </ol>
 */
public final class ZeroBench {
  /** Sizes of one invocation; {@code memoryDps} the data-parallel widths of the memory runs. */
  public record Config(Trainer model, String label, int[] memoryDps, int memorySteps, int timeRounds, int timeSteps, GptConfig fusedModel,
                       int fusedIters) {
    public static Config of(boolean quick) {
      Trainer tiny = Trainer.model("gpt").size("tiny").seqLen(64).globalBatch(16).warmup(1).lr(1e-3).seed(7);
      Trainer small = Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64)
          .set("model.config.heads", 4).seqLen(32).globalBatch(8).warmup(1).lr(1e-3).seed(7);
      return quick ? new Config(small, "GPT 2 layers h=64 seq 32 batch 8", new int[] {2}, 2, 1, 3, new GptConfig(2, 64, 4, 4, 256, 32), 3)
          : new Config(tiny, "GPT tiny seq 64 batch 16", new int[] {2, 4}, 2, 5, 12, BenchSuite.tinyGpt(), 40);
    }
  }

  /** One run's per-rank bytes (from its summary) and the parameter count N of the rank's model. */
  public record MemoryPoint(int dp, int zero, long parameters, RunSummary.Memory measured) {
    public long paramsExpected() { return zero == 3 ? 4 * parameters / dp : 4 * parameters; }
    public long gradsExpected() { return zero >= 2 ? 4 * parameters / dp : 4 * parameters; }
    public long optimizerExpected() { return zero >= 1 ? 8 * parameters / dp : 8 * parameters; }
    public long expectedTotal() { return paramsExpected() + gradsExpected() + optimizerExpected(); }
    public long measuredTotal() { return measured.parameters() + measured.gradients() + measured.optimizerState(); }
  }

  /** Per round, the median step_ms of each stage's run ({@code stepMs[stage][round]}). */
  public record StepTimes(int dp, double[][] stepMs) {}

  /** Per iteration, the fused step and libtorch's AdamW step, in ms. */
  public record FusedStep(GptConfig model, long parameters, int tensors, double[] fusedMs, double[] libtorchMs) {}

  public record Result(Config config, List<MemoryPoint> memory, StepTimes times, FusedStep fused) {}

  private ZeroBench() {}

  public static Result measure(Config c) {
    Path dir = StepBench.tempDir();
    try {
      List<MemoryPoint> memory = new ArrayList<>();
      for (int dp : c.memoryDps()) {
        for (int z = 0; z <= 3; z++) {
          RunSummary s = c.model().steps(c.memorySteps()).dataParallel(dp).zero(z)
              .runDir(dir.resolve("mem-dp" + dp + "-z" + z)).fit().summary();
          memory.add(new MemoryPoint(dp, z, s.parameters(), s.memory()));
        }
      }
      int dp = 2;
      double[][] ms = new double[4][c.timeRounds()];
      for (int r = 0; r < c.timeRounds(); r++) {
        for (int k = 0; k < 4; k++) {
          int z = (k + r) % 4;
          ms[z][r] = c.model().steps(c.timeSteps()).dataParallel(dp).zero(z)
              .runDir(dir.resolve("time-r" + r + "-z" + z)).fit().summary().stepMsMedian();
        }
      }
      return new Result(c, memory, new StepTimes(dp, ms), fusedStep(c.model().toSpec().train(), c.fusedModel(), c.fusedIters()));
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** The fused step against libtorch's AdamW, one thread, on two copies of the same model. */
  static FusedStep fusedStep(TrainSpec train, GptConfig cfg, int iters) {
    NativeThreads.configure(NativeThreads.perRank(1));
    Gpt fusedModel = new Gpt(cfg, new DenseLayers(train.seed()));
    Gpt plainModel = new Gpt(cfg, new DenseLayers(train.seed()));
    var params = fusedModel.parameters().list();
    ShardedOptimizer fused = new ShardedOptimizer(0, params, new int[params.size()], new SoloCommunicator("dp"),
        new SoloCommunicator("tp"), train, "fp32", 1 << 18, 0);
    Optimizer plain = Optimizers.create(train, plainModel.parameters().tensors());
    ArithmeticCorpus data = new ArithmeticCorpus(train.seed());
    int batch = 2, warm = 2;
    double[] f = new double[iters], p = new double[iters];
    try {
      for (int i = -warm; i < iters; i++) {
        try (PointerScope scope = new PointerScope()) {
          Batches.Batch b = Batches.make(data, (long) (i + warm) * batch, batch, cfg.seqLen());
          double a, bb;
          if ((i & 1) == 0) {
            a = fusedOnce(fused, fusedModel, b, train.lr());
            bb = plainOnce(plain, plainModel, b);
          } else {
            bb = plainOnce(plain, plainModel, b);
            a = fusedOnce(fused, fusedModel, b, train.lr());
          }
          if (i >= 0) {
            f[i] = a;
            p[i] = bb;
          }
        }
      }
    } finally {
      fused.close();
    }
    return new FusedStep(cfg, fusedModel.parameters().numel(), params.size(), f, p);
  }

  private static double fusedOnce(ShardedOptimizer opt, Gpt model, Batches.Batch b, double lr) {
    opt.beforeBackward(0, 1);
    model.loss(b.tokens(), b.targets()).backward();
    opt.afterBackward(0, 1); // moves the gradients into the flat buffer
    long t0 = System.nanoTime();
    opt.step(lr, 1.0);
    return (System.nanoTime() - t0) / 1e6;
  }

  private static double plainOnce(Optimizer opt, Gpt model, Batches.Batch b) {
    opt.zero_grad();
    model.loss(b.tokens(), b.targets()).backward();
    long t0 = System.nanoTime();
    opt.step();
    return (System.nanoTime() - t0) / 1e6;
  }

  public static List<BenchRow> rows(Result r) {
    List<BenchRow> rows = new ArrayList<>();
    for (MemoryPoint m : r.memory()) {
      RunSummary.Memory x = m.measured();
      long base = r.memory().stream().filter(o -> o.dp() == m.dp() && o.zero() == 0).findFirst()
          .map(MemoryPoint::measuredTotal).orElse(m.measuredTotal());
      rows.add(BenchRow.of("zero", String.format(Locale.ROOT,
              "dp=%d zero %d: per-rank bytes (params + grads + Adam moments) vs analytical, N=%,d", m.dp(), m.zero(), m.parameters()),
          m.measuredTotal(), m.expectedTotal(), "B", "≤ 1.1", String.format(Locale.ROOT,
              "measured/analytical: params %.4f, grads %.4f, moments %.4f; %.3f of zero 0's bytes",
              (double) x.parameters() / m.paramsExpected(), (double) x.gradients() / m.gradsExpected(),
              (double) x.optimizerState() / m.optimizerExpected(), (double) m.measuredTotal() / base)));
    }
    StepTimes t = r.times();
    for (int z = 1; z <= 3; z++) {
      rows.add(BenchRow.paired("zero", "dp=" + t.dp() + " step_ms: zero " + z + " vs zero 0 (runs alternated), " + r.config().label(),
          Stats.median(t.stepMs()[z]), Stats.median(t.stepMs()[0]), "ms", Stats.ratios(t.stepMs()[z], t.stepMs()[0]),
          "(report)", "pairs: the runs of one round, each its median step_ms"));
    }
    FusedStep f = r.fused();
    rows.add(BenchRow.paired("zero", String.format(Locale.ROOT,
            "optimizer step, GPT %d layers h=%d (%,d params in %d tensors): fused flat AdamW vs libtorch AdamW",
            f.model().layers(), f.model().hidden(), f.parameters(), f.tensors()),
        Stats.median(f.fusedMs()), Stats.median(f.libtorchMs()), "ms", Stats.ratios(f.fusedMs(), f.libtorchMs()), "≤ 1",
        "same gradients, interleaved"));
    return rows;
  }
}
