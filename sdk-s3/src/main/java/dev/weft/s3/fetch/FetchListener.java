package dev.weft.s3.fetch;

/** Hears a fetch's progress (the CLI prints it); called on the copying thread. */
public interface FetchListener {
  FetchListener NONE = new FetchListener() {};

  /** {@code done} bytes of {@code o} are in its partial file. */
  default void bytes(SourceObject o, long done) {}

  /** {@code o} is complete in the target; {@code skipped} when an earlier fetch had already copied it. */
  default void finished(SourceObject o, boolean skipped) {}
}
