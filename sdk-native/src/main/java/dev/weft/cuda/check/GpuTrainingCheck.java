package dev.weft.cuda.check;

import dev.weft.cuda.CudaDoctor;
import dev.weft.cuda.CudaRuntime;
import dev.weft.cuda.CudaStatus;
import dev.weft.cuda.LocalDevice;
import dev.weft.cuda.TorchCuda;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Device;

/**
 * The libtorch half of the GPU check, run by {@code native/gpu-check.sh run} once the presets' glue has linked
 * against the GPU machine's libtorch: libtorch CUDA tensors from Java, the sharded optimizer's fused step against
 * libtorch's AdamW on the device, a bf16 GEMM measurement, Weft's training loop with {@code device: cuda}
 * ({@link TrainingRunCheck}: GPT small against the same run on the CPU, and a ~1.2B GPT's step time and MFU), then the
 * fine-tuning paths ({@link FineTuneCheck}). One list of steps serves the device run and the dry run
 * ({@code --dry}: the CPU, tiny shapes; what only measures a device is listed as skipped), so the dry run walks every
 * step the device will. The plan (each step's planned seconds) prints first; the steps run within
 * {@value #BUDGET_ENV} seconds (default {@value #DEFAULT_BUDGET_S}), after which the rest are listed as skipped.
 * Exit status 0 all passed, 1 a check failed, 2 no CUDA device, 4 libtorch's CUDA build is not usable here.
 * {@code WEFT_GPU_CHECK_SKIP_1B=1} leaves out the GPT ~1.2B benchmark.
 */
public final class GpuTrainingCheck {
  /** Flat-shard length of the optimizer comparison: 16 Mi + 3 (the kernel's vector path and its scalar tail). */
  static final long OPTIMIZER_ELEMENTS = (16L << 20) + 3;
  static final String BUDGET_ENV = "WEFT_GPU_CHECK_BUDGET_S";
  /** The training half's share of the ~8 minutes of one device call (the kernel half takes about one more). */
  static final int DEFAULT_BUDGET_S = 420;

  private GpuTrainingCheck() {}

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("--dry")) {
      System.exit(dry() ? 0 : 1);
    }
    System.out.println("== weft gpu training check ==");
    CudaDoctor.report().forEach(l -> System.out.println("  " + l));
    CudaStatus s = CudaStatus.current();
    if (s.devices().isEmpty()) {
      System.out.println("NO DEVICE: " + s.missing());
      System.exit(2);
    }
    TorchCuda.Status torch = TorchCuda.status();
    if (!torch.usable()) {
      System.out.println("NO LIBTORCH CUDA: " + torch.detail());
      System.exit(4);
    }
    int index = LocalDevice.index(s.devices().size());
    CudaRuntime.setDevice(index);
    List<Step> steps = steps(Target.cuda(index), new TrainingRunCheck(Runtime.getRuntime().availableProcessors()));
    Duration budget = budget();
    Sections.plan("training half", steps, budget);
    System.exit(Sections.summary(Sections.runAll(steps, budget)) ? 0 : 1);
  }

  /** Every step of the training half on {@code target}, in the order they run (the cheap, telling ones first). */
  static List<Step> steps(Target target, TrainingRunCheck training) {
    Device device = new Device(target.dry() ? "cpu" : "cuda:" + target.index());
    TorchCudaCheck torch = new TorchCudaCheck(device);
    List<Step> out = new ArrayList<>();
    out.add(new Step("libtorch tensors from Java on " + device.str().getString(), 5, () -> List.of(torch.roundTrip())));
    out.add(new Step("sharded optimizer step on " + device.str().getString(), 15,
        () -> new OptimizerCheck(device, device.str().getString()).run(target.dry() ? 4099 : OPTIMIZER_ELEMENTS, target.dry() ? 2 : 5)));
    out.add(Step.deviceOnly("bf16 gemm 8192^3", 10, target, () -> List.of(torch.bf16Gemm(8192, 10))));
    out.add(new Step("weft training loop on gpt small, " + target.device() + " vs cpu", 30, () -> training.againstCpu(target)));
    out.addAll(new FineTuneCheck(target, training).steps());
    boolean skip1b = "1".equals(System.getenv("WEFT_GPU_CHECK_SKIP_1B"));
    out.add(Step.deviceOnly("gpt ~1.2B bf16: step time and MFU", 45, target,
        () -> List.of(skip1b ? CheckResult.skip("gpt ~1.2B", "WEFT_GPU_CHECK_SKIP_1B=1") : training.mfu())));
    return out;
  }

  /** {@value #BUDGET_ENV}, or the default; a value that is not a positive number of seconds is named and ignored. */
  static Duration budget() {
    String v = System.getenv(BUDGET_ENV);
    if (v == null || v.isBlank()) return Duration.ofSeconds(DEFAULT_BUDGET_S);
    try {
      int s = Integer.parseInt(v.trim());
      if (s > 0) return Duration.ofSeconds(s);
    } catch (NumberFormatException e) {
      // named below
    }
    System.out.println("  " + BUDGET_ENV + "=" + v + " is not a positive number of seconds; using " + DEFAULT_BUDGET_S);
    return Duration.ofSeconds(DEFAULT_BUDGET_S);
  }

  /** Every step on the CPU with tiny shapes ({@code gpu-check.sh run --dry}, and the suite's {@code GpuTrainingCheckDryTest}). */
  static boolean dry() { return Sections.summary(dryResults()); }

  static List<CheckResult> dryResults() {
    System.out.println("== weft gpu training check, dry: every step on the cpu with tiny shapes ==");
    List<Step> steps = steps(Target.tiny(), new TrainingRunCheck(1));
    Duration none = Duration.ofDays(1);
    Sections.plan("training half, as a device runs it", steps, budget());
    return Sections.runAll(steps, none);
  }
}
