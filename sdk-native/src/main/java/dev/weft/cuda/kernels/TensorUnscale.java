package dev.weft.cuda.kernels;

import dev.weft.cuda.CudaStream;
import dev.weft.util.Tensors;
import java.util.List;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The multi-tensor unscale + inf check over libtorch tensors: every element of every tensor multiplied by a factor in
 * place, and one flag raised if any was inf or NaN. CUDA tensors: Weft's kernel on this object's stream (blocking,
 * so ordered with libtorch's default stream), as few launches as the list needs; CPU tensors: its C++ reference.
 */
public final class TensorUnscale implements AutoCloseable {
  private final Kernels cpu = new ReferenceKernels();
  private CudaStream stream;
  private Kernels gpu;

  /**
   * Multiplies every tensor of {@code tensors} (contiguous fp32, all on one device) by {@code factor}; returns true
   * when any element was inf or NaN.
   */
  public boolean apply(List<Tensor> tensors, float factor) {
    if (tensors.isEmpty()) return false;
    boolean cuda = tensors.get(0).is_cuda();
    long[] addresses = new long[tensors.size()], sizes = new long[tensors.size()];
    for (int i = 0; i < addresses.length; i++) {
      Tensor t = tensors.get(i);
      if (t.scalar_type().value != ScalarType.Float.value || !t.is_contiguous() || t.is_cuda() != cuda) {
        throw new IllegalArgumentException("unscale needs contiguous fp32 tensors on one device; tensor " + i + " is "
            + t.scalar_type() + (t.is_contiguous() ? "" : ", not contiguous,") + " on " + (t.is_cuda() ? "CUDA" : "CPU"));
      }
      addresses[i] = t.numel() == 0 ? 0 : t.data_ptr().address();
      sizes[i] = t.numel();
    }
    Tensor flag = Tensors.zerosLike(tensors.get(0), 1); // fp32 0/1 on the tensors' device
    (cuda ? gpu() : cpu).unscaleCheck(addresses, sizes, factor, flag.data_ptr().address());
    return flag.item_double() != 0; // the one read-back of this call: waits for the kernel alone
  }

  private Kernels gpu() {
    if (gpu == null) {
      stream = CudaStream.create();
      gpu = new DeviceKernels(stream);
    }
    return gpu;
  }

  @Override
  public void close() {
    if (stream != null) stream.close();
  }
}
