package dev.weft.util;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.openblas.presets.openblas_nolapack;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.global.torch;

/**
 * libtorch's two compute pools: its OpenMP intra-op pool (element-wise work, per calling thread) and
 * OpenBLAS's own pthread pool (fp32 matmul, one per process). When several ranks share a few cores
 * each must use few threads of both, or the pools fight: rank threads of one JVM calling a
 * two-thread OpenBLAS concurrently made an in-process dp=2 step 2-10x slower than the same ranks as
 * processes (docs/performance.md, "fit"). OpenMP's count is process-wide but applied lazily per
 * thread, so rank threads call {@link #configure} too; OpenBLAS's count is set for the whole process,
 * since OpenBLAS reads {@code OPENBLAS_NUM_THREADS} only when it loads.
 *
 * <p>libgomp reads {@code OMP_WAIT_POLICY} only when it loads, and without {@code PASSIVE} its idle
 * threads spin for ~300,000 iterations after every parallel region, stealing the cores OpenBLAS's
 * threads need. What can still be changed later: libgomp spins only 100 iterations when it manages
 * more threads than there are CPUs (documented under {@code GOMP_SPINCOUNT}). So when neither
 * variable is set, the first {@link #configure} parks one OpenMP team of {@code cores + 1} threads
 * on a daemon thread of its own: they sleep for good, and every other team's spinning is throttled.
 */
public final class NativeThreads {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(NativeThreads.class);
  private static final Duration PARK_DEADLINE = Duration.ofSeconds(60);
  private static boolean spinTamed;

  private NativeThreads() {}

  /** This thread's intra-op threads, and OpenBLAS's pool for the process, to {@code threads} (at least 1). */
  public static void configure(int threads) {
    int n = Math.max(1, threads);
    tameSpinning();
    torch.set_num_threads(n); // after the parked team: its count must not be the one later threads inherit
    openblas_nolapack.blas_set_num_threads(n); // finds openblas_set_num_threads in the loaded libopenblas
  }

  /** Threads per rank when {@code ranksHere} ranks share this machine. */
  public static int perRank(int ranksHere) {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / Math.max(1, ranksHere));
  }

  /** Whether this JVM's OpenMP threads spin by default (the user set neither variable). */
  static boolean spinsByDefault() {
    return System.getenv("OMP_WAIT_POLICY") == null && System.getenv("GOMP_SPINCOUNT") == null;
  }

  /** Once per JVM, where libgomp spins by default: park a team that puts it over the CPU count. */
  private static synchronized void tameSpinning() {
    if (spinTamed || !spinsByDefault()) return;
    spinTamed = true;
    int team = Runtime.getRuntime().availableProcessors() + 1;
    CountDownLatch formed = new CountDownLatch(1);
    Thread t = new Thread(() -> {
      torch.set_num_threads(team);
      try (PointerScope s = new PointerScope()) {
        torch.ones((long) team << 16).add_(new Scalar(1.0)); // enough elements for a parallel_for of `team` chunks
      }
      formed.countDown();
      while (true) LockSupport.park(); // the team stays docked in this thread's pool, asleep
    }, "weft-omp-parked-team");
    t.setDaemon(true);
    t.start();
    try {
      if (!formed.await(PARK_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
        log.warn("the parked OpenMP team did not form within {} s; OpenMP threads may spin (set OMP_WAIT_POLICY=PASSIVE)",
            PARK_DEADLINE.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.debug("OMP_WAIT_POLICY unset: parked an OpenMP team of {} threads so that libgomp throttles its spinning", team);
  }
}
