package dev.weft.cuda.streams;

import dev.weft.comm.CommException;
import dev.weft.comm.PendingOp;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Orders a group's collectives, queued on their own stream, with compute on another, through events only, so that
 * neither stream waits for the other more than the data requires:
 *
 * <ol>
 *   <li>launch: the communication stream waits for an event recorded on the compute stream (the tensor it sends
 *       was produced there), then the collective is queued, then a "done" event is recorded after it; compute
 *       queued later (the rest of backward) does not wait for it;
 *   <li>await: the host polls "done" until the group's deadline (checking the library's asynchronous error, and
 *       aborting the group on timeout), then the compute stream waits for "done" so that work queued after the
 *       await reads the result.
 * </ol>
 */
public final class CollectiveOrder<S, E> implements AutoCloseable {
  /** The group's view of its library: asynchronous errors, and abort after a timeout. */
  public interface Watch {
    void check();

    void abort();
  }

  private final StreamOps<S, E> ops;
  private final S compute;
  private final S comm;
  private final String group;
  private final String where;
  private final Duration timeout;
  private final Watch watch;
  private final Set<E> inFlight = Collections.newSetFromMap(new IdentityHashMap<>());

  /** @param where this rank's place in the group, for messages ("rank 1 of 4") */
  public CollectiveOrder(StreamOps<S, E> ops, S compute, S comm, String group, String where, Duration timeout, Watch watch) {
    this.ops = ops;
    this.compute = compute;
    this.comm = comm;
    this.group = group;
    this.where = where;
    this.timeout = timeout;
    this.watch = watch;
  }

  /** Queues {@code enqueue} (which puts one collective on the communication stream) after the compute so far. */
  public PendingOp launch(String what, Runnable enqueue) {
    E ready = ops.record(compute);
    try {
      ops.waitFor(comm, ready);
    } finally {
      ops.release(ready);
    }
    enqueue.run();
    E done = ops.record(comm);
    synchronized (inFlight) {
      inFlight.add(done);
    }
    return () -> {
      try {
        awaitDone(done, what);
        ops.waitFor(compute, done);
      } finally {
        synchronized (inFlight) {
          if (inFlight.remove(done)) ops.release(done);
        }
      }
    };
  }

  private void awaitDone(E done, String what) {
    long end = System.nanoTime() + timeout.toNanos();
    while (!ops.done(done)) {
      watch.check();
      if (System.nanoTime() > end) {
        watch.abort();
        throw new CommException(what + " on group " + group + " (" + where + ") did not complete within "
            + timeout.toSeconds() + " s; the communicator was aborted. A peer rank is gone or stuck: see its log");
      }
      LockSupport.parkNanos(50_000);
    }
  }

  /** Collectives launched and not yet awaited. */
  public int inFlight() {
    synchronized (inFlight) {
      return inFlight.size();
    }
  }

  @Override
  public void close() {
    synchronized (inFlight) {
      inFlight.forEach(ops::release);
      inFlight.clear();
    }
  }
}
