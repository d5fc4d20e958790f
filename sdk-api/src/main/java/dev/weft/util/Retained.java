package dev.weft.util;

import java.util.Arrays;
import org.bytedeco.javacpp.Pointer;

/**
 * Native objects (autograd hooks, tensors) held by a reference of our own past the PointerScope they were made in, until
 * {@link #release}: libtorch may call a hook after its call's scope closed, so that scope must not free it.
 */
public final class Retained {
  private Retained() {}

  /** Takes a reference of each of {@code ps} that a deallocator owns; returns those, for {@link #release}. */
  public static Pointer[] hold(Pointer... ps) {
    Pointer[] held = Arrays.stream(ps).filter(p -> p.referenceCount() > 0).toArray(Pointer[]::new);
    for (Pointer p : held) p.retainReference();
    return held;
  }

  /** Gives back the references {@link #hold} took; returns an empty array to hold in their place. */
  public static Pointer[] release(Pointer[] held) {
    for (Pointer p : held) p.releaseReference();
    return new Pointer[0];
  }
}
