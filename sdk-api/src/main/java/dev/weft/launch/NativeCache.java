package dev.weft.launch;

/**
 * Extracts libtorch's natives into JavaCPP's cache once, in the process that is about to start several
 * worker JVMs. With a cold cache (a fresh pod's scratch volume, a new WEFT_CACHE_DIR) ranks started
 * together would otherwise extract the same libraries at once, and one maps a file the other is still
 * rewriting (SIGBUS in the dynamic loader).
 */
public final class NativeCache {
  private static volatile boolean ready;

  private NativeCache() {}

  /** Loads libtorch here (which extracts it), at most once per JVM; a failure is left to the workers to report. */
  public static void prepare() {
    if (ready) return;
    synchronized (NativeCache.class) {
      if (ready) return;
      try {
        org.bytedeco.javacpp.Loader.load(org.bytedeco.pytorch.global.torch.class);
      } catch (Throwable t) {
        // the workers load it themselves and say why it fails
      }
      ready = true;
    }
  }
}
