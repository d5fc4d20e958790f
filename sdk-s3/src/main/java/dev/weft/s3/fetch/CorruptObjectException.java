package dev.weft.s3.fetch;

import dev.weft.error.WeftException;

/** An object whose bytes do not match the checksum its source gives: refused, nothing of it left in the target. */
public final class CorruptObjectException extends WeftException {
  public CorruptObjectException(String message) { super(message); }
}
