package dev.weft.cuda.kernels;

import dev.weft.cuda.CudaStream;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * {@link FusedAdamW} over libtorch tensors, for the sharded optimizer: CPU tensors go through the C++ reference,
 * CUDA tensors through the kernel on this object's stream (ordered with libtorch's default stream).
 */
public final class TensorAdamW implements AutoCloseable {
  private final AdamWConfig config;
  private final Kernels cpu = new ReferenceKernels();
  private CudaStream stream;
  private Kernels gpu;

  /** With fixed hyper-parameters, for {@link #step(long, Tensor, Tensor, Tensor, Tensor, Tensor)}. */
  public TensorAdamW(AdamWConfig config) {
    this.config = config;
  }

  /** Hyper-parameters given with each step (the learning rate follows a schedule). */
  public static TensorAdamW perStep() { return new TensorAdamW(null); }

  /** One step; {@code bf16Copy} may be null. All tensors contiguous, same device, same element count. */
  public void step(long step, Tensor param, Tensor grad, Tensor expAvg, Tensor expAvgSq, Tensor bf16Copy) {
    if (config == null) throw new IllegalStateException("this TensorAdamW takes its configuration with each step");
    step(config, step, param, grad, expAvg, expAvgSq, bf16Copy);
  }

  /** One step with {@code c}; otherwise as above. */
  public void step(AdamWConfig c, long step, Tensor param, Tensor grad, Tensor expAvg, Tensor expAvgSq, Tensor bf16Copy) {
    long n = param.numel();
    boolean cuda = param.is_cuda();
    for (Tensor t : new Tensor[] {grad, expAvg, expAvgSq}) require(t, ScalarType.Float, n, cuda);
    require(param, ScalarType.Float, n, cuda);
    if (bf16Copy != null) require(bf16Copy, ScalarType.BFloat16, n, cuda);
    long out = bf16Copy == null ? 0 : address(bf16Copy);
    (cuda ? gpu() : cpu).adamStep(c, step, address(param), address(grad), address(expAvg), address(expAvgSq), out, n);
  }

  /** Whether the last step ran on the device (false: the C++ reference on the host). */
  public boolean onDevice() { return gpu != null; }

  private Kernels gpu() {
    if (gpu == null) {
      stream = CudaStream.create();
      gpu = new DeviceKernels(stream);
    }
    return gpu;
  }

  private static long address(Tensor t) { return t.numel() == 0 ? 0 : t.data_ptr().address(); }

  private static void require(Tensor t, ScalarType type, long n, boolean cuda) {
    if (t.scalar_type().value != type.value || t.numel() != n || !t.is_contiguous() || t.is_cuda() != cuda) {
      throw new IllegalArgumentException("fused AdamW needs contiguous " + type + " tensors of " + n + " elements on "
          + (cuda ? "CUDA" : "CPU") + ", got " + t.scalar_type() + " with " + t.numel() + " elements"
          + (t.is_contiguous() ? "" : ", not contiguous") + " on " + (t.is_cuda() ? "CUDA" : "CPU"));
    }
  }

  @Override
  public void close() {
    if (stream != null) stream.close();
  }
}
