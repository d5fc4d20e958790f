package dev.weft.tracking.progress;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends progress from a thread of its own so that a step never waits on the network: {@link #offer} only replaces
 * the one pending report (the latest wins; nothing queues up), and the thread posts it at most once per
 * {@code interval}. A failing post is logged once (then at debug) and retried with the latest report after a backoff
 * that doubles up to {@code maxBackoff}; a success after failures is logged. {@link #close} hands over the last report
 * and waits at most {@code closeWait} for it to go out.
 */
public final class ProgressReporter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ProgressReporter.class);

  /** Delivers one report within its own deadline, or throws. */
  public interface Poster {
    void post(TrainerStatus status) throws IOException;

    /** Readies what every post needs (the TLS context), off the training thread, before the first report. */
    default void prepare() throws IOException {}
  }

  private final Poster poster;
  private final Duration interval, maxBackoff, closeWait;
  private final String where;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Thread thread;
  private TrainerStatus pending;
  private boolean closing;
  private long sent, failures;

  public ProgressReporter(Poster poster, String where, Duration interval, Duration maxBackoff, Duration closeWait) {
    this.poster = poster;
    this.where = where;
    this.interval = interval;
    this.maxBackoff = maxBackoff;
    this.closeWait = closeWait;
    this.thread = new Thread(this::run, "weft-trainjob-progress");
    thread.setDaemon(true); // a post that outlives close never holds the JVM
    thread.start();
  }

  /** Replaces the pending report; returns at once. */
  public void offer(TrainerStatus status) {
    lock.lock();
    try {
      pending = status;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Reports accepted by the server so far. */
  public long sent() {
    lock.lock();
    try {
      return sent;
    } finally {
      lock.unlock();
    }
  }

  /** Hands over {@code last} (when not null), then waits at most the close wait for it to be sent. */
  public void close(TrainerStatus last) {
    lock.lock();
    try {
      if (last != null) pending = last;
      closing = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      thread.join(closeWait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.info("TrainJob progress: the last report to {} did not go out within {} s; leaving it", where, closeWait.toSeconds());
      thread.interrupt();
    }
  }

  @Override
  public void close() { close(null); }

  private void run() {
    try {
      poster.prepare();
    } catch (IOException | RuntimeException e) {
      log.debug("TrainJob progress: not ready yet: {}", e.getMessage()); // the first post says it again, once
    }
    long notBefore = System.nanoTime();
    Duration backoff = interval;
    while (true) {
      TrainerStatus next;
      boolean last;
      lock.lock();
      try {
        while (!closing && (pending == null || System.nanoTime() < notBefore)) {
          long wait = pending == null ? TimeUnit.SECONDS.toNanos(60) : notBefore - System.nanoTime();
          if (changed.awaitNanos(Math.max(1, wait)) <= 0 && pending != null) break;
        }
        if (closing && pending == null) return;
        if (!closing && System.nanoTime() < notBefore) continue;
        next = pending;
        pending = null;
        last = closing;
      } catch (InterruptedException e) {
        return;
      } finally {
        lock.unlock();
      }
      if (send(next)) {
        backoff = interval;
        notBefore = System.nanoTime() + interval.toNanos();
      } else {
        backoff = backoff.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : backoff.multipliedBy(2);
        notBefore = System.nanoTime() + backoff.toNanos();
        offerIfNone(next); // the next try sends this report unless a newer one arrives
      }
      if (last) return;
    }
  }

  private void offerIfNone(TrainerStatus s) {
    lock.lock();
    try {
      if (pending == null) pending = s;
    } finally {
      lock.unlock();
    }
  }

  private boolean send(TrainerStatus s) {
    try {
      poster.post(s);
      lock.lock();
      try {
        sent++;
        if (failures > 0) log.info("TrainJob progress: {} answers again after {} failed report(s)", where, failures);
        failures = 0;
      } finally {
        lock.unlock();
      }
      return true;
    } catch (IOException | RuntimeException e) {
      lock.lock();
      try {
        if (failures++ == 0) {
          log.warn("TrainJob progress: cannot report to {} ({}); training goes on, retrying with backoff", where, e.getMessage());
        } else {
          log.debug("TrainJob progress: report {} to {} failed: {}", failures, where, e.getMessage());
        }
      } finally {
        lock.unlock();
      }
      return false;
    }
  }
}
