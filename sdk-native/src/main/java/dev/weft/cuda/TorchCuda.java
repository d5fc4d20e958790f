package dev.weft.cuda;

/**
 * Whether libtorch can make CUDA tensors here. Only the {@code linux-x86_64-gpu} build of the PyTorch presets
 * can; Weft does not depend on it (it is ~460 MB), so this looks for it at run time and never fails.
 */
public final class TorchCuda {
  /** What was found: usable or not, and a sentence saying why. */
  public record Status(boolean usable, String detail) {}

  private static volatile Status status;

  private TorchCuda() {}

  public static Status status() {
    if (status == null) status = probe();
    return status;
  }

  /**
   * libtorch's current CUDA device for this thread (its own runtime state: Weft's kernels link cudart statically, so
   * {@link CudaRuntime#setDevice} does not set it). By reflection: {@code torch_cuda} loads only with the CUDA build.
   */
  public static void setDevice(int index) {
    if (!status().usable()) return;
    try {
      Class.forName("org.bytedeco.pytorch.global.torch_cuda").getMethod("set_device", byte.class).invoke(null, (byte) index);
    } catch (ReflectiveOperationException e) {
      throw new CudaException("libtorch could not select cuda:" + index + ": " + e.getCause(), -1);
    }
  }

  private static Status probe() {
    ClassLoader cl = TorchCuda.class.getClassLoader();
    if (cl.getResource("org/bytedeco/pytorch/global/torch.class") == null) {
      return new Status(false, "libtorch is not on the classpath");
    }
    // the GPU training check links the presets' glue against another libtorch on the library path (no natives jar)
    boolean gpuBuild = cl.getResource("org/bytedeco/pytorch/linux-x86_64-gpu/") != null
        || "-gpu".equals(System.getProperty("org.bytedeco.javacpp.platform.extension"));
    if (!gpuBuild) {
      return new Status(false, "the libtorch on the classpath is the CPU build; add "
          + "org.bytedeco:pytorch:<version>:linux-x86_64-gpu (and org.bytedeco:cuda) for CUDA tensors");
    }
    try {
      boolean ok = org.bytedeco.pytorch.global.torch.cuda_is_available();
      return ok ? new Status(true, "libtorch CUDA build with " + org.bytedeco.pytorch.global.torch.cuda_device_count() + " device(s)")
          : new Status(false, "the libtorch CUDA build is present but sees no CUDA device");
    } catch (Throwable t) {
      return new Status(false, "the libtorch CUDA build did not load: " + t);
    }
  }
}
