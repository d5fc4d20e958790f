package dev.weft.cuda.check;

import dev.weft.cuda.CudaDoctor;
import dev.weft.cuda.CudaRuntime;
import dev.weft.cuda.CudaStatus;
import dev.weft.cuda.LocalDevice;
import dev.weft.cuda.TorchCuda;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Device;

/**
 * The libtorch half of the GPU check, run by {@code native/gpu-check.sh run} once the presets' glue has linked
 * against the GPU machine's libtorch: libtorch CUDA tensors from Java, the sharded optimizer's fused step against
 * libtorch's AdamW on the device, a bf16 GEMM measurement, then Weft's training loop with {@code device: cuda}
 * ({@link TrainingRunCheck}: GPT small against the same run on the CPU, and a ~1.2B GPT's step time and MFU).
 * Exit status 0 all passed, 1 a check failed, 2 no CUDA device, 4 libtorch's CUDA build is not usable here (the
 * script then runs {@link GpuCheck} alone). {@code WEFT_GPU_CHECK_SKIP_1B=1} leaves out the 1B benchmark.
 */
public final class GpuTrainingCheck {
  /** Flat-shard length of the optimizer comparison: 16 Mi + 3 (the kernel's vector path and its scalar tail). */
  static final long OPTIMIZER_ELEMENTS = (16L << 20) + 3;

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
    System.exit(run(LocalDevice.index(s.devices().size())) ? 0 : 1);
  }

  static boolean run(int index) {
    CudaRuntime.setDevice(index);
    Device device = new Device("cuda:" + index);
    List<CheckResult> results = new ArrayList<>();
    TorchCudaCheck torch = new TorchCudaCheck(device);
    Sections.run("libtorch CUDA from Java", () -> List.of(torch.roundTrip()), results);
    Sections.run("sharded optimizer step on the device",
        () -> new OptimizerCheck(device, "cuda:" + index).run(OPTIMIZER_ELEMENTS, 5), results);
    Sections.run("speed", () -> List.of(torch.bf16Gemm(8192, 10)), results);
    TrainingRunCheck training = new TrainingRunCheck(Runtime.getRuntime().availableProcessors());
    Sections.run("weft training loop, device: cuda vs cpu", training::cudaAgainstCpu, results);
    if ("1".equals(System.getenv("WEFT_GPU_CHECK_SKIP_1B"))) {
      System.out.println("-- speed of a ~1B model\n  SKIP (WEFT_GPU_CHECK_SKIP_1B=1)");
    } else {
      Sections.run("speed of a ~1B model", () -> List.of(training.mfu()), results);
    }
    new FineTuneCheck(FineTuneCheck.Target.cuda(index), training).steps()
        .forEach(st -> Sections.run(st.title(), st.body(), results));
    return Sections.summary(results);
  }

  /**
   * Every step that does not need a device, on the CPU with tiny shapes ({@code gpu-check.sh run --dry}, and the
   * suite's {@code GpuTrainingCheckDryTest}): the libtorch round trip, the optimizer comparison, and each
   * {@link FineTuneCheck} step. The GEMM and the GPT runs measure a device and are listed as skipped.
   */
  static boolean dry() { return Sections.summary(dryResults()); }

  static List<CheckResult> dryResults() {
    System.out.println("== weft gpu training check, dry: every step on the cpu with tiny shapes ==");
    Device cpu = new Device("cpu");
    List<CheckResult> results = new ArrayList<>();
    Sections.run("libtorch tensors from Java", () -> List.of(new TorchCudaCheck(cpu).roundTrip()), results);
    Sections.run("sharded optimizer step", () -> new OptimizerCheck(cpu, "cpu").run(4099, 2), results);
    Sections.run("speed, weft training loop on gpt (device only)", () -> List.of(
        CheckResult.skip("bf16 gemm, gpt small cuda vs cpu, gpt ~1.2B mfu", "dry run: they measure a CUDA device")), results);
    TrainingRunCheck training = new TrainingRunCheck(1);
    new FineTuneCheck(FineTuneCheck.Target.tiny(), training).steps()
        .forEach(st -> Sections.run(st.title(), st.body(), results));
    return results;
  }
}
