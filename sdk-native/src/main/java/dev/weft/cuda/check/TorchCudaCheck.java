package dev.weft.cuda.check;

import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Device;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/** libtorch's CUDA build driven from Java: tensors reach the device and come back, and a bf16 GEMM's speed. */
final class TorchCudaCheck {
  /** An H200's bf16 peak as measured through PyTorch here (8192³ products), the MFU denominator of the docs. */
  static final double PEAK_BF16_TFLOPS = 790;

  private final Device device;

  TorchCudaCheck(Device device) { this.device = device; }

  CheckResult roundTrip() {
    try (PointerScope scope = new PointerScope()) {
      Tensor host = torch.arange(new org.bytedeco.pytorch.Scalar(1 << 20)).to(ScalarType.Float);
      Tensor back = host.to(device, ScalarType.Float).mul(new org.bytedeco.pytorch.Scalar(2)).cpu();
      double err = back.sub(host.mul(new org.bytedeco.pytorch.Scalar(2))).abs().max().item_double();
      return CheckResult.of("libtorch tensors on " + device.str().getString(), err == 0,
          "1 Mi floats there, doubled, back: max error " + err);
    }
  }

  /** Mean time of {@code iters} products of two n×n bf16 matrices after three warm-ups: a measurement. */
  CheckResult bf16Gemm(long n, int iters) {
    try (PointerScope scope = new PointerScope()) {
      TensorOptions o = new TensorOptions(ScalarType.BFloat16).device(new org.bytedeco.pytorch.DeviceOptional(device));
      Tensor a = torch.randn(new long[] {n, n}, o), b = torch.randn(new long[] {n, n}, o);
      for (int i = 0; i < 3; i++) a.matmul(b);
      torch.cuda_synchronize();
      long t0 = System.nanoTime();
      for (int i = 0; i < iters; i++) a.matmul(b);
      torch.cuda_synchronize();
      double s = (System.nanoTime() - t0) / 1e9 / iters;
      double tflops = 2.0 * n * n * n / s / 1e12;
      return CheckResult.of("bf16 gemm " + n + "^3 through libtorch from Java", tflops > 0,
          String.format("%.2f ms = %.0f TFLOP/s (%.0f%% of the %.0f measured through PyTorch)", s * 1e3, tflops,
              100 * tflops / PEAK_BF16_TFLOPS, PEAK_BF16_TFLOPS));
    }
  }

  List<CheckResult> runAll() { return List.of(roundTrip(), bf16Gemm(8192, 10)); }
}
