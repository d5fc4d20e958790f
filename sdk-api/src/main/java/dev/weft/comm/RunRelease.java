package dev.weft.comm;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the ranks of a run let go of their groups and their store together, so that a run inside a JVM that goes on
 * (fit() in JShell or a notebook, the tests) leaves no Gloo threads or sockets and no store server behind. Every
 * rank first waits until all ranks are past their last collective (destroying a group under a peer still inside a
 * collective would leave that peer waiting for its timeout), then destroys its groups, then leaves the store; rank 0,
 * which hosts it, shuts the store down last, once every other rank has left. Everything waits at most one deadline:
 * a rank that is gone or stuck makes the others give up and leave everything as it is (a leak, never a hang), and the
 * first to give up says so in the store so that the others stop waiting too.
 */
public final class RunRelease {
  private static final Logger log = LoggerFactory.getLogger(RunRelease.class);
  static final String ARRIVED = "release/arrived";
  static final String ALL = "release/all";
  static final String LEFT = "release/left";
  static final String GAVE_UP = "release/gaveUp";

  private RunRelease() {}

  /** Releases {@code groups} (in order) and then {@code store}, together with the run's other ranks, within {@code deadline}. */
  public static void release(Rendezvous store, int rank, int world, List<? extends AutoCloseable> groups, Duration deadline) {
    long end = System.nanoTime() + deadline.toNanos();
    try {
      if (store.calls().lost()) {
        log.debug("rank {} keeps its groups and store: the store is unreachable", rank);
        return;
      }
      if (store.add(ARRIVED, 1) == world) store.set(ALL, "1");
      if (!await(store, end, () -> store.has(ALL))) {
        giveUp(store, rank, "not every rank reached the end of the run within " + deadline.toSeconds() + " s");
        return;
      }
      for (AutoCloseable g : groups) g.close();
      if (rank != 0) {
        store.add(LEFT, 1);
        store.close();
      } else if (await(store, end, () -> store.add(LEFT, 0) >= world - 1)) {
        store.close();
      } else {
        log.debug("rank 0 keeps the store running: not every rank left it within {} s", deadline.toSeconds());
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) Thread.currentThread().interrupt();
      log.debug("rank {} left its groups and store as they are: {}", rank, e.getMessage());
    }
  }

  /** Polls {@code done} until it holds (true), another rank gave up or {@code end} passed (false). */
  private static boolean await(Rendezvous store, long end, BooleanSupplier done) throws InterruptedException {
    long pauseMs = 1;
    while (true) {
      if (store.has(GAVE_UP)) return false;
      if (done.getAsBoolean()) return true;
      if (System.nanoTime() > end) return false;
      Thread.sleep(pauseMs);
      pauseMs = Math.min(50, pauseMs * 2);
    }
  }

  private static void giveUp(Rendezvous store, int rank, String why) {
    log.debug("rank {} keeps its groups and store: {}", rank, why);
    store.set(GAVE_UP, String.valueOf(rank));
  }
}
