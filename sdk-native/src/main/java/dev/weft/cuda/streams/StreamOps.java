package dev.weft.cuda.streams;

/**
 * The four stream operations that ordering needs, over any stream type {@code S} and event type {@code E}: CUDA
 * streams and events ({@link CudaStreamOps}), or host stand-ins in tests. Nothing here blocks the calling thread.
 */
public interface StreamOps<S, E> {
  /** A new event marking everything queued on {@code stream} so far. */
  E record(S stream);

  /** Work queued on {@code stream} after this call starts only once {@code event} has completed. */
  void waitFor(S stream, E event);

  /** Whether the work {@code event} marks has completed. */
  boolean done(E event);

  /** Frees the event (safe while waits on it are still queued). */
  void release(E event);
}
