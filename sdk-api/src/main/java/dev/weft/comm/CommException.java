package dev.weft.comm;

import dev.weft.error.WeftException;

/** A collective, point-to-point transfer or rendezvous that failed or timed out. */
public final class CommException extends WeftException {
  public CommException(String message) { super(message); }
  public CommException(String message, Throwable cause) { super(message, cause); }
}
