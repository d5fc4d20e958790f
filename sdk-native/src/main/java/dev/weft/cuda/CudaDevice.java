package dev.weft.cuda;

/** One CUDA device as cudaGetDeviceProperties describes it. */
public record CudaDevice(int index, String name, int major, int minor, long totalBytes, int multiprocessors) {
  @Override
  public String toString() {
    return String.format("cuda:%d %s (sm_%d%d, %.1f GiB, %d SMs)", index, name, major, minor,
        totalBytes / (1024.0 * 1024 * 1024), multiprocessors);
  }
}
