package dev.weft.testing;

import dev.weft.comm.Communicator;
import dev.weft.comm.Rendezvous;
import dev.weft.comm.RunRelease;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.launch.ThreadedRun;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * One Gloo group of {@code world} rank threads on a fresh store, for tests of collectives and split layers without a
 * whole {@link dev.weft.comm.Distributed}; released together at the end ({@link RunRelease}), so that a test calling
 * it many times leaves no groups or store servers behind.
 */
public final class GroupRanks {
  private GroupRanks() {}

  /** {@code body} on every rank with its communicator (group rank = rank); results in rank order. */
  public static <T> List<T> run(int world, String name, Duration timeout, Function<Communicator, T> body) {
    return ThreadedRun.onRanks(world, timeout, id -> {
      Rendezvous store = Rendezvous.connect(id.masterAddr(), id.masterPort(), id.rank(), id.rank() == 0, timeout);
      Communicator c = new GlooBackend().createGroup(store, name, id.rank(), world, timeout);
      try {
        return body.apply(c);
      } finally {
        RunRelease.release(store, id.rank(), world, List.of(c), timeout);
      }
    });
  }
}
