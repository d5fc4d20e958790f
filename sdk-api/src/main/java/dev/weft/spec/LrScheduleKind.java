package dev.weft.spec;

/**
 * {@code train.schedule}: the learning rate's shape after warm-up. {@code constant}: {@code lr} throughout;
 * {@code linear} and {@code cosine}: from {@code lr} down to the final rate at the last step; {@code wsd}
 * (warmup-stable-decay): {@code lr} until the last {@code train.decayRatio} of the steps, then linearly down.
 */
public enum LrScheduleKind implements SpecChoice {
  CONSTANT("constant"), LINEAR("linear"), COSINE("cosine"), WSD("wsd");

  private final String spelling;

  LrScheduleKind(String spelling) { this.spelling = spelling; }

  @Override public String spelling() { return spelling; }

  /** The kind a validated {@code train.schedule} names. */
  public static LrScheduleKind of(String spelling) { return SpecChoice.of(LrScheduleKind.class, spelling); }
}
