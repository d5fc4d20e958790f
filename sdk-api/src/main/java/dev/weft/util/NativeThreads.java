package dev.weft.util;

import org.bytedeco.pytorch.global.torch;

/**
 * libtorch's intra-op pool. When several ranks share a few cores each must use few threads, or
 * OpenMP and OpenBLAS spin against each other (a 5x slowdown seen here). The setting is
 * process-wide but applied lazily per thread, so rank threads call it too.
 */
public final class NativeThreads {
  private NativeThreads() {}

  public static void configure(int threads) {
    torch.set_num_threads(Math.max(1, threads));
  }

  /** Threads per rank when {@code ranksHere} ranks share this machine. */
  public static int perRank(int ranksHere) {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / Math.max(1, ranksHere));
  }
}
