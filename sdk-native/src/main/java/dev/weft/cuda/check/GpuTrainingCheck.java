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
    section("libtorch CUDA from Java", List.of(torch.roundTrip()), results);
    section("sharded optimizer step on the device",
        new OptimizerCheck(device, "cuda:" + index).run(OPTIMIZER_ELEMENTS, 5), results);
    section("speed", List.of(torch.bf16Gemm(8192, 10)), results);
    TrainingRunCheck training = new TrainingRunCheck(Runtime.getRuntime().availableProcessors());
    section("weft training loop, device: cuda vs cpu", training.cudaAgainstCpu(), results);
    if ("1".equals(System.getenv("WEFT_GPU_CHECK_SKIP_1B"))) {
      System.out.println("-- speed of a ~1B model\n  SKIP (WEFT_GPU_CHECK_SKIP_1B=1)");
    } else {
      section("speed of a ~1B model", List.of(training.mfu()), results);
    }
    long failed = results.stream().filter(r -> !r.passed()).count();
    System.out.println("== " + (results.size() - failed) + " passed, " + failed + " failed ==");
    return failed == 0;
  }

  private static void section(String title, List<CheckResult> part, List<CheckResult> all) {
    System.out.println("-- " + title);
    part.forEach(r -> System.out.println("  " + r));
    all.addAll(part);
  }
}
