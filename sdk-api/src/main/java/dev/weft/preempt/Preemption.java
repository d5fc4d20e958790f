package dev.weft.preempt;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIGTERM as a request to stop gracefully, for the whole process. While a {@link Guard} is open (a training loop, a
 * launcher, an elastic agent) the first SIGTERM only sets {@link #requested()} and runs the {@link #onTerm} actions
 * (a launcher forwards the signal to its workers); the guarded parts stop at the next step boundary, save and exit
 * 0 themselves. If they are not done by the guard's deadline, or a second SIGTERM arrives, the process halts with
 * {@link #EXIT_FALLBACK} at once: the last committed checkpoint stands (a checkpoint is committed atomically, so a
 * save cut short is never taken for one). With no guard open, SIGTERM ends the process as the JVM's default would.
 *
 * <p>The handler is {@code sun.misc.Signal} (module jdk.unsupported, in every JDK) rather than a shutdown hook: a
 * hook runs after the JVM has begun to exit, concurrently with every other hook (a launcher's own hook would
 * SIGKILL its workers mid-save), {@code System.exit} then blocks, and the exit code is 143 unless the hook halts.
 * The signal handler leaves the JVM running normally, so the training thread reaches its step boundary, saves and
 * returns, and the process ends with its own exit code. Where the handler cannot be installed (a JVM started
 * with {@code -Xrs}) SIGTERM keeps the JVM's default meaning and this is said once.
 */
public final class Preemption {
  private static final Logger log = LoggerFactory.getLogger(Preemption.class);
  /** Exit code when the save did not finish in time or a second SIGTERM came: as if killed by SIGTERM (retried). */
  public static final int EXIT_FALLBACK = 143;

  private static final AtomicInteger terms = new AtomicInteger();
  private static final AtomicInteger guards = new AtomicInteger();
  private static final List<Runnable> actions = new CopyOnWriteArrayList<>();
  private static volatile Duration deadline = new GracePeriod(GracePeriod.DEFAULT_SECONDS).saveDeadline();
  private static volatile String guarded = "";
  private static volatile long termAtNanos;
  private static boolean installed;
  private static volatile boolean signalled;

  private Preemption() {}

  /** A part of this process that stops gracefully on SIGTERM while open. */
  public static final class Guard implements AutoCloseable {
    private boolean closed;

    private Guard() {}

    @Override public synchronized void close() {
      if (!closed) guards.decrementAndGet();
      closed = true;
    }
  }

  /**
   * Opens a guard for {@code what} ("training", "the launcher"): from now on SIGTERM asks it to stop; after
   * {@code deadline} from the signal the process halts.
   */
  public static Guard guard(String what, Duration deadline) {
    install();
    Preemption.deadline = deadline;
    guarded = what;
    guards.incrementAndGet();
    return new Guard();
  }

  /** Whether this process was told to stop (SIGTERM, or {@link #request()}). */
  public static boolean requested() { return terms.get() > 0; }

  /** Seconds since the first SIGTERM; 0 before one. */
  public static double secondsSinceTerm() {
    return termAtNanos == 0 ? 0 : (System.nanoTime() - termAtNanos) / 1e9;
  }

  /** Runs {@code action} on the first SIGTERM (at once if it came already); closing the result forgets it. */
  public static Action onTerm(Runnable action) {
    actions.add(action);
    if (requested()) action.run();
    return () -> actions.remove(action);
  }

  /** A registered SIGTERM action; closing it forgets it. */
  @FunctionalInterface
  public interface Action extends AutoCloseable {
    @Override void close();
  }

  /** What a SIGTERM does; public for a test or an embedding application that has its own signal handling. */
  public static void request() {
    int n = terms.incrementAndGet();
    if (n > 1) {
      fallBack("a second SIGTERM");
      return;
    }
    termAtNanos = System.nanoTime();
    if (guards.get() == 0) { // nothing here stops gracefully: the JVM's default (shutdown hooks, exit 143)
      log.info("SIGTERM: nothing to save yet, exiting");
      new Thread(() -> System.exit(EXIT_FALLBACK), "weft-sigterm-exit").start();
      return;
    }
    Duration d = deadline;
    log.warn("SIGTERM: {} stops at the next step boundary after an emergency checkpoint; if that takes more than {} s"
        + " (or on a second SIGTERM) it exits on the last committed checkpoint", guarded, d.toSeconds());
    for (Runnable a : actions) {
      try {
        a.run();
      } catch (RuntimeException e) {
        log.warn("on SIGTERM: {}", e.toString());
      }
    }
    Thread timer = new Thread(() -> {
      try {
        Thread.sleep(d.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      fallBack("the deadline of " + d.toSeconds() + " s after SIGTERM");
    }, "weft-sigterm-deadline");
    timer.setDaemon(true);
    timer.start();
  }

  /**
   * After a graceful stop (the emergency checkpoint committed): ends the JVM with 0, as the SIGTERM asked, where
   * this process got one; returns otherwise ({@link #request()} called by an application that exits by itself).
   */
  public static void exitAfterSave() {
    if (termAtNanos == 0 || !signalled) return;
    log.info("exiting {} s after SIGTERM", String.format("%.1f", secondsSinceTerm()));
    System.exit(0);
  }

  private static void fallBack(String why) {
    log.warn("{} came before the emergency checkpoint was done: exiting now; the last committed checkpoint stands", why);
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(EXIT_FALLBACK);
  }

  private static synchronized void install() {
    if (installed) return;
    installed = true;
    try {
      sun.misc.Signal.handle(new sun.misc.Signal("TERM"), s -> {
        signalled = true;
        request();
      });
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      log.warn("cannot handle SIGTERM ({}): a SIGTERM ends this process without an emergency checkpoint", e.getMessage());
    }
  }
}
