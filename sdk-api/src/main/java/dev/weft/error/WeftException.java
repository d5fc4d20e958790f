package dev.weft.error;

/** Base of every error Weft raises on purpose. Messages say what to change, not only what went wrong. */
public class WeftException extends RuntimeException {
  public WeftException(String message) { super(message); }
  public WeftException(String message, Throwable cause) { super(message, cause); }
}
