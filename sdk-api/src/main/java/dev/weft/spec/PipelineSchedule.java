package dev.weft.spec;

/** {@code parallel.schedule}: the order a pipeline stage runs its micro-batches' forwards and backwards. */
public enum PipelineSchedule implements SpecChoice {
  GPIPE("gpipe"), ONE_F_ONE_B("1f1b"), INTERLEAVED("interleaved-1f1b");

  private final String spelling;

  PipelineSchedule(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The schedule a validated {@code parallel.schedule} names. */
  public static PipelineSchedule of(String spelling) { return SpecChoice.of(PipelineSchedule.class, spelling); }
}
