package dev.weft.comm;

import dev.weft.util.NativeTraces;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Runs the calls on one store connection with a deadline each. A TCPStore call on a link that was
 * cut blocks in the kernel with no end (no reset ever arrives), and native code cannot be
 * interrupted: so each call runs on this connection's own daemon thread and the caller waits at most
 * the deadline. A call past its deadline marks the connection lost; every later call fails at once
 * with the same one-line reason (the stuck thread is left behind: the process is expected to stop).
 */
public final class StoreCalls {
  private final String store;
  private final Duration deadline;
  private final String gone;
  private final ExecutorService thread;
  private volatile String lost;
  private volatile boolean hostGone;

  /** @param store how messages name the store, e.g. "the rendezvous store at 10.231.0.1:29400" */
  public StoreCalls(String store, Duration deadline) { this(store, deadline, null); }

  /**
   * @param gone the one line when the store's host drops the connection (reset, refused, closed: its process is
   *     gone); null: {@code store} "closed the connection"
   */
  public StoreCalls(String store, Duration deadline, String gone) {
    this.store = store;
    this.deadline = deadline;
    this.gone = gone;
    this.thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "weft-store-calls");
      t.setDaemon(true);
      return t;
    });
  }

  public Duration deadline() { return deadline; }

  /** {@code body} within the default deadline. */
  public <T> T call(String what, Supplier<T> body) { return call(what, deadline, body); }

  public void run(String what, Runnable body) {
    call(what, () -> {
      body.run();
      return null;
    });
  }

  /** {@code body} within {@code limit} (a blocking wait passes its own wait time plus a margin). */
  public <T> T call(String what, Duration limit, Supplier<T> body) {
    String why = lost;
    if (why != null) throw new StoreUnreachableException(why, hostGone);
    Future<T> f = thread.submit(body::get);
    try {
      return f.get(limit.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      String reason = store + " did not answer " + what + " within " + seconds(limit)
          + " s: this node is cut off from it or its host is gone";
      lost = reason;
      throw new StoreUnreachableException(reason);
    } catch (ExecutionException e) {
      if (connectionLost(e.getCause())) {
        hostGone = true;
        lost = gone != null ? gone : store + " closed the connection (" + NativeTraces.firstLine(e.getCause().getMessage())
            + "): its host is gone";
        throw new StoreUnreachableException(lost, true);
      }
      if (e.getCause() instanceof RuntimeException re) throw re;
      throw new CommException(store + ": " + what + " failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      throw new CommException("interrupted while waiting for " + store + " (" + what + ")");
    }
  }

  /** Whether a store call failed because the connection to the store's host broke (libtorch's words for it). */
  static boolean connectionLost(Throwable t) {
    String m = t == null ? "" : NativeTraces.firstLine(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
    return m.contains("connection reset") || m.contains("broken pipe") || m.contains("connection refused")
        || m.contains("connection closed") || m.contains("closed by peer") || m.contains("got 0 bytes");
  }

  /**
   * Ends this connection's call thread; later calls fail. True once no call is in progress any more (within
   * {@code wait}): only then may the connection itself be freed.
   */
  public boolean close(Duration wait) {
    thread.shutdown();
    try {
      return thread.awaitTermination(wait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** True once a call has missed its deadline or lost its connection. */
  public boolean lost() { return lost != null; }

  private static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? String.valueOf(ms / 1000) : String.format("%.1f", ms / 1000.0);
  }

  /** A store call that missed its deadline: the store is unreachable from here. */
  public static final class StoreUnreachableException extends dev.weft.error.WeftException {
    private final boolean connectionLost;

    public StoreUnreachableException(String message) { this(message, false); }

    /** @param connectionLost the store's host dropped the connection (its process ended), rather than a missed deadline */
    public StoreUnreachableException(String message, boolean connectionLost) {
      super(message);
      this.connectionLost = connectionLost;
    }

    public boolean connectionLost() { return connectionLost; }
  }
}
