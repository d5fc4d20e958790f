package dev.weft.spec;

import dev.weft.error.BadInputException;

/** A spec that cannot run. {@link #field()} is the dotted path of the offending field, as written in YAML. */
public final class SpecException extends BadInputException {
  private final String field;
  private final String detail;

  public SpecException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
    this.detail = message;
  }

  public String field() { return field; }

  /** The same mistake said of {@code other}: a value checked by code that names the field it usually serves. */
  public SpecException about(String other) { return new SpecException(other, detail); }
}
