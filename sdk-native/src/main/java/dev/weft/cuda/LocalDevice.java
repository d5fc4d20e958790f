package dev.weft.cuda;

/** Which CUDA device this process uses: its local rank ({@code LOCAL_RANK}, set by the launcher) modulo the devices. */
public final class LocalDevice {
  private LocalDevice() {}

  public static int index(int deviceCount) {
    if (deviceCount <= 0) throw new CudaException("no CUDA device to choose from", -1);
    String env = System.getenv("LOCAL_RANK");
    int localRank;
    try {
      localRank = env == null || env.isBlank() ? 0 : Integer.parseInt(env.strip());
    } catch (NumberFormatException e) {
      throw new CudaException("LOCAL_RANK='" + env + "' is not a number; the launcher sets it to the rank on this host", -1);
    }
    return Math.floorMod(localRank, deviceCount);
  }
}
