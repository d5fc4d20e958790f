package dev.weft.checkpoint;

import dev.weft.error.WeftException;

/** A checkpoint could not be written, read or matched to the state that wants it. The message names the file or tensor. */
public class CheckpointException extends WeftException {
  public CheckpointException(String message) { super(message); }
  public CheckpointException(String message, Throwable cause) { super(message, cause); }
}
