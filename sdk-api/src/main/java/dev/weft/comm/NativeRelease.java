package dev.weft.comm;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Destroys a native object within a deadline. A Gloo group's destructor joins its worker threads, which finish an
 * operation still in flight first (up to the group's own timeout); a store's joins its server loop. Native code
 * cannot be interrupted, so the destruction runs on its own daemon thread and the caller waits at most the deadline:
 * past it the destruction goes on in the background and the caller moves on (never a hang).
 */
public final class NativeRelease {
  private static final Logger log = LoggerFactory.getLogger(NativeRelease.class);

  private NativeRelease() {}

  /** Runs {@code destroy} on a daemon thread; true when it finished within {@code limit}. */
  public static boolean within(String what, Duration limit, Runnable destroy) {
    CountDownLatch done = new CountDownLatch(1);
    Thread t = new Thread(() -> {
      try {
        destroy.run();
      } catch (RuntimeException e) {
        log.debug("releasing {} failed: {}", what, e.getMessage());
      } finally {
        done.countDown();
      }
    }, "weft-release");
    t.setDaemon(true);
    t.start();
    try {
      if (done.await(limit.toNanos(), TimeUnit.NANOSECONDS)) return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.debug("releasing {} did not finish within {} ms: it goes on in the background", what, limit.toMillis());
    return false;
  }
}
