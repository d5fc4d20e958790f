package dev.weft.checkpoint;

import java.nio.file.Path;

/**
 * A checkpoint file is damaged: wrong checksum, missing, truncated or not in the expected format.
 * {@link #file()} is the file to look at; resolving {@code latest} falls back past such checkpoints.
 */
public class CorruptCheckpointException extends CheckpointException {
  private final transient Path file;

  public CorruptCheckpointException(Path file, String what) {
    super(file + ": " + what);
    this.file = file;
  }

  public CorruptCheckpointException(Path file, String what, Throwable cause) {
    super(file + ": " + what, cause);
    this.file = file;
  }

  public Path file() { return file; }
}
