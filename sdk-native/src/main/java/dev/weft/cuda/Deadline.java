package dev.weft.cuda;

import dev.weft.cuda.jni.KernelLib;
import java.time.Duration;
import java.util.function.IntSupplier;

/** Polls a CUDA query (stream or event) until it stops answering "not ready", or a timeout passes. */
final class Deadline {
  private Deadline() {}

  static void poll(IntSupplier query, Duration timeout, String what) {
    long end = System.nanoTime() + timeout.toNanos();
    long sleepNanos = 10_000;
    while (true) {
      int rc = query.getAsInt();
      if (rc != KernelLib.NOT_READY) {
        CudaRuntime.check(rc, what);
        return;
      }
      if (System.nanoTime() > end) {
        throw new CudaException(what + " did not finish within " + timeout.toMillis() + " ms; the GPU is stuck or a "
            + "collective waits for a peer that never joined", KernelLib.NOT_READY);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(sleepNanos);
      sleepNanos = Math.min(1_000_000, sleepNanos * 2);
    }
  }
}
