package dev.weft.spec;

/**
 * {@code parallel.schedule}: the order a pipeline stage runs its micro-batches' forwards and backwards.
 * The zero-bubble ones ({@code zb-h1}, {@code zbv}) split each backward into its input and weight gradients.
 */
public enum PipelineSchedule implements SpecChoice {
  GPIPE("gpipe"), ONE_F_ONE_B("1f1b"), INTERLEAVED("interleaved-1f1b"), ZB_H1("zb-h1"), ZBV("zbv");

  private final String spelling;

  PipelineSchedule(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** Whether the backward runs as separate input-gradient and weight-gradient actions. */
  public boolean splitsBackward() { return this == ZB_H1 || this == ZBV; }

  /** The schedule a validated {@code parallel.schedule} names. */
  public static PipelineSchedule of(String spelling) { return SpecChoice.of(PipelineSchedule.class, spelling); }
}
