package dev.weft.spec;

/** {@code precision.dtype} and {@code precision.reduceDtype}: the float type computed in, or reduced in. */
public enum PrecisionDtype implements SpecChoice {
  FP32("fp32"), BF16("bf16"), FP16("fp16");

  private final String spelling;

  PrecisionDtype(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The type a validated dtype field names. */
  public static PrecisionDtype of(String spelling) { return SpecChoice.of(PrecisionDtype.class, spelling); }
}
