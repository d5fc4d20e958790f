package dev.weft.cuda.check;

import dev.weft.Trainer;
import dev.weft.comm.WorkerIdentity;
import dev.weft.launch.FreePort;
import dev.weft.launch.WorkerRun;
import dev.weft.metrics.DeviceMemory;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.RunResult;
import dev.weft.train.StepListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Weft's own training loop on the device ({@code WorkerRun} → {@code TrainingLoop}, one rank, {@code device: cuda}):
 * GPT small for a few steps on CUDA against the same run on the CPU (same seed, same data: the CUDA run starts from
 * the CPU run's weights), in fp32 and in bf16 autocast; and the step time and MFU of a ~1.2B-parameter GPT in bf16.
 */
final class TrainingRunCheck {
  /** fp32 on both sides (libtorch's default: no TF32), only reduction order differs. */
  static final double FP32_TOLERANCE = 2e-3;
  /** bf16 autocast on CUDA against fp32 on the CPU. */
  static final double BF16_TOLERANCE = 3e-2;
  /** The target for the 1B benchmark. */
  static final double MFU_TARGET = 0.40;
  static final int COMPARE_STEPS = 4;

  private final int threads;
  private final Path work;

  TrainingRunCheck(int threads) {
    this.threads = threads;
    try {
      this.work = Files.createTempDirectory("weft-gpu-train");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * GPT small (8 layers, hidden 512) at dp=1, or a tiny GPT on a dry run: the spec both runs share but for
   * {@code device} and precision.
   */
  static Trainer gptSmall(Target target, String device, String precision) {
    Trainer t = target.dry() ? Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 64)
        .set("model.config.heads", 4).seqLen(16).globalBatch(4)
        : Trainer.model("gpt").size("small").seqLen(128).globalBatch(8);
    return t.steps(COMPARE_STEPS).warmup(1).lr(3e-4).seed(11).precision(precision).device(device);
  }

  /** ~1.2B parameters: 24 layers of hidden 2048 (12·L·h² ≈ 1.21e9), sequence 1024, 16 sequences a step, bf16. */
  static Trainer gpt1b() {
    return Trainer.model("gpt").set("model.config.layers", 24).set("model.config.hidden", 2048).set("model.config.heads", 16)
        .seqLen(1024).globalBatch(16).steps(8).warmup(2).lr(1e-4).seed(1).precision("bf16").device("cuda");
  }

  /** GPT small on {@code target} (fp32, then bf16 autocast) against fp32 on the CPU, step by step. */
  List<CheckResult> againstCpu(Target target) {
    List<CheckResult> out = new ArrayList<>();
    RunResult cpu;
    try {
      cpu = run("gpt-cpu-fp32", gptSmall(target, "cpu", "fp32").toSpec());
    } catch (RuntimeException e) {
      return List.of(CheckResult.threw("gpt small on the CPU (the reference)", e));
    }
    String d = target.device();
    out.add(compare("gpt small dp=1, fp32: " + d + " vs cpu losses", "gpt-fp32", gptSmall(target, d, "fp32"), cpu,
        FP32_TOLERANCE, target));
    out.add(compare("gpt small dp=1, bf16 autocast on " + d + " vs fp32 cpu", "gpt-bf16", gptSmall(target, d, "bf16"), cpu,
        BF16_TOLERANCE, target));
    return out;
  }

  private CheckResult compare(String name, String dir, Trainer cuda, RunResult cpu, double tolerance, Target target) {
    try {
      RunResult r = run(dir, cuda.toSpec());
      double worst = 0;
      for (int i = 0; i < COMPARE_STEPS; i++) {
        worst = Math.max(worst, Math.abs(r.losses().get(i) - cpu.losses().get(i)) / Math.abs(cpu.losses().get(i)));
      }
      DeviceMemory m = r.summary().memory().device();
      boolean memory = target.dry() || m != null && m.allocated() > 0 && m.peakAllocated() >= m.allocated() && m.reserved() >= m.allocated();
      return CheckResult.of(name, worst <= tolerance && memory, String.format(
          "max relative difference %.2e over %d steps (tolerance %.0e); %s %s, cpu %s; step %.1f ms vs %.1f ms; device memory %s",
          worst, COMPARE_STEPS, tolerance, target.device(), r.losses(), cpu.losses(), r.summary().stepMsMedian(), cpu.summary().stepMsMedian(),
          m == null ? (target.dry() ? "none (cpu)" : "MISSING from summary.json") : m.allocated() + " allocated / " + m.reserved() + " reserved / "
              + m.peakAllocated() + " peak bytes"));
    } catch (RuntimeException e) {
      return CheckResult.threw(name, e);
    }
  }

  CheckResult mfu() {
    String name = "gpt ~1.2B bf16 step time / MFU (target >= " + Math.round(MFU_TARGET * 100) + "% of "
        + Math.round(TorchCudaCheck.PEAK_BF16_TFLOPS) + " TFLOP/s)";
    try {
      RunResult r = run("gpt-1b", gpt1b().toSpec());
      double flops = r.summary().modelFlopsPerS(), mfu = flops / (TorchCudaCheck.PEAK_BF16_TFLOPS * 1e12);
      DeviceMemory m = r.summary().memory().device();
      return CheckResult.of(name, mfu >= MFU_TARGET, String.format(
          "%,d parameters, median step %.1f ms, %.0f tokens/s, %.0f TFLOP/s = MFU %.1f%%; peak device memory %s",
          r.summary().parameters(), r.summary().stepMsMedian(), r.summary().tokensPerS(), flops / 1e12, 100 * mfu,
          m == null ? "unknown" : String.format("%.1f GiB", m.peakAllocated() / (double) (1L << 30))));
    } catch (RuntimeException e) {
      return CheckResult.threw(name, e);
    }
  }

  /** Where the runs write (one folder each). */
  Path work() { return work; }

  RunResult run(String dir, TrainingSpec spec) {
    WorkerIdentity id = new WorkerIdentity(0, 1, 0, "127.0.0.1", FreePort.find());
    return WorkerRun.run(spec, id, work.resolve(dir), threads, Duration.ofMinutes(5), StepListener.NONE);
  }
}
