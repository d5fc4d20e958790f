package dev.weft.parallel.tensor;

import java.util.Arrays;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.bytedeco.javacpp.Pointer;

/**
 * Keeps one forward call's hook objects alive until its backward has run them. libtorch holds
 * JavaCPP callbacks only weakly, so each is kept reachable here; and a forward may run inside a PointerScope that
 * closes before its backward (a pipeline action), so objects a scope owns get an extra reference too. They are
 * released at the next forward call or step boundary, never from inside their own call.
 */
public final class BackwardHolds {
  private final Set<Held> awaiting = ConcurrentHashMap.newKeySet();
  private final Queue<Held> done = new ConcurrentLinkedQueue<>();

  /**
   * Native objects of one call: every one kept reachable here (a hook libtorch calls must not be collected: JavaCPP
   * frees a collected callback's native side, and the backward then fails with a bare NullPointerException), and those a
   * PointerScope owns also retained until {@link #release}.
   */
  public static final class Held {
    @SuppressWarnings("unused") // reachability is its job
    private final Pointer[] objects;
    private final Pointer[] retained;

    public Held(Pointer... objects) {
      this.objects = objects.clone();
      retained = Arrays.stream(objects).filter(BackwardHolds::scoped).toArray(Pointer[]::new);
      for (Pointer p : retained) p.retainReference();
    }

    private void release() {
      for (Pointer p : retained) p.releaseReference();
    }
  }

  /** Whether a PointerScope owns {@code p} (reference count above zero): it would free p when it closes. */
  public static boolean scoped(Pointer p) { return p.referenceCount() > 0; }

  public void hold(Held h) {
    releaseDone();
    awaiting.add(h);
  }

  /** Its backward ran every hook: release it at the next {@link #hold} or {@link #dropAll}. */
  public void finished(Held h) {
    if (awaiting.remove(h)) done.add(h);
  }

  /** Releases everything, including calls whose backward never ran; only when no backward is pending. */
  public void dropAll() {
    releaseDone();
    for (Held h : awaiting) h.release();
    awaiting.clear();
  }

  private void releaseDone() {
    for (Held h = done.poll(); h != null; h = done.poll()) h.release();
  }
}
