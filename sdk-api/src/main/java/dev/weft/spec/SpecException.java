package dev.weft.spec;

import dev.weft.error.WeftException;

/** A spec that cannot run. {@link #field()} is the dotted path of the offending field, as written in YAML. */
public final class SpecException extends WeftException {
  private final String field;

  public SpecException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  public String field() { return field; }
}
