package dev.weft.util;

import java.util.ArrayDeque;
import org.bytedeco.pytorch.Tensor;

/**
 * Tensors a backward hook returned to autograd. Autograd copies the returned handle as the hook returns, so our own
 * reference is given back at the next {@link #releaseEarlier} on the same thread (the next hook or forward, of any
 * layer) instead of living in whatever PointerScope encloses the backward: the step's, which kept every layer's input
 * gradient to the step's end. Per thread: another thread's hook may not have returned yet.
 */
public final class HandedToAutograd {
  private static final ThreadLocal<ArrayDeque<Tensor>> OURS = ThreadLocal.withInitial(ArrayDeque::new);

  private HandedToAutograd() {}

  /** {@code t}, holding a reference of ours ({@link Tensors#outlive}) until the next {@link #releaseEarlier}. */
  public static Tensor hand(Tensor t) {
    OURS.get().add(t);
    return t;
  }

  /** Gives back our references to what this thread's earlier hooks returned. */
  public static void releaseEarlier() {
    ArrayDeque<Tensor> ours = OURS.get();
    for (Tensor t = ours.poll(); t != null; t = ours.poll()) t.releaseReference();
  }
}
