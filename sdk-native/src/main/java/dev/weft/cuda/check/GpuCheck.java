package dev.weft.cuda.check;

import dev.weft.cuda.CudaDoctor;
import dev.weft.cuda.CudaRuntime;
import dev.weft.cuda.CudaStatus;
import dev.weft.cuda.CudaStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The device check that native/gpu-check.sh runs on a GPU machine, with no libtorch: every kernel against its CPU
 * reference, an NCCL single-rank round trip, and the fused AdamW bandwidth. Exit status 0 when all pass, 1 when a
 * check fails, 2 when there is no usable CUDA device.
 */
public final class GpuCheck {
  /** Elements in the bandwidth measurement: 64 Mi fp32 per buffer, 1.9 GB of traffic per step. */
  static final long BANDWIDTH_ELEMENTS = 64L << 20;

  private GpuCheck() {}

  public static void main(String[] args) {
    System.out.println("== weft gpu check ==");
    CudaDoctor.report().forEach(l -> System.out.println("  " + l));
    CudaStatus s = CudaStatus.current();
    if (s.devices().isEmpty()) {
      System.out.println("NO DEVICE: " + s.missing());
      System.exit(2);
    }
    System.exit(run() ? 0 : 1);
  }

  static boolean run() {
    CudaRuntime.setDevice(0);
    List<CheckResult> results = new ArrayList<>();
    try (CudaStream stream = CudaStream.create()) {
      List<Step> steps = List.of(
          new Step("kernels vs CPU reference", 30, new KernelCheck(stream)::runAll),
          new Step("nccl single rank", 10, new NcclCheck(stream)::runAll),
          new Step("bandwidth", 10, () -> List.of(new BandwidthCheck(stream).run(BANDWIDTH_ELEMENTS))));
      Sections.plan("kernel/NCCL half", steps, null);
      steps.forEach(s -> Sections.run(s, results)); // no budget: a minute, and every line of it is wanted
    }
    return Sections.summary(results);
  }
}
