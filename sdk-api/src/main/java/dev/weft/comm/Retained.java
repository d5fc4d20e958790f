package dev.weft.comm;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps rendezvous stores and process groups alive until the JVM exits. Letting the garbage
 * collector destroy them frees their C++ objects at an arbitrary moment, possibly while a peer
 * rank (another thread of this JVM) is still closing its sockets; libtorch then aborts the process.
 * A worker process holds one set for its life anyway; in-process runs pay a few idle sockets.
 */
public final class Retained {
  private static final List<Object> RETAINED = new ArrayList<>();

  private Retained() {}

  public static synchronized <T> T keep(T o) {
    RETAINED.add(o);
    return o;
  }
}
