package dev.weft.comm;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps rendezvous stores and process groups alive until they are closed on purpose (or the JVM exits). Letting
 * the garbage collector destroy them frees their C++ objects at an arbitrary moment, possibly while a peer rank
 * (another thread of this JVM) is still using its end; libtorch then aborts the process. {@link #release} lets go
 * of an object whose owner has just destroyed it in order ({@link Distributed#close}).
 */
public final class Retained {
  private static final List<Object> RETAINED = new ArrayList<>();

  private Retained() {}

  public static synchronized <T> T keep(T o) {
    RETAINED.add(o);
    return o;
  }

  /** Forgets {@code o} (by identity): its owner destroyed it or hands it to the collector. */
  public static synchronized void release(Object o) {
    RETAINED.removeIf(kept -> kept == o);
  }
}
