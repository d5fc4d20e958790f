package dev.weft.tokenizer.chat.jinja;

/**
 * How much one render may do: {@code maxSteps} units of work (a unit per node evaluated or loop turn, and one per
 * 16 characters or items a value is built of) and {@code maxChars}, the largest output or value (characters of a
 * string, items of a list). Past either the render stops with a {@link TemplateError.Kind#LIMIT} error, so no
 * template or data can run unbounded or exhaust memory.
 */
public record Limits(long maxSteps, long maxChars) {
  /** 20 million steps (a few seconds at most) and 64 Mi characters: far above any real conversation's needs. */
  public static final Limits DEFAULT = new Limits(20_000_000L, 64L << 20);
  /** Calls (macros, their callers) nested deeper than this are refused rather than overflowing the stack. */
  static final int MAX_DEPTH = 200;

  public Limits {
    if (maxSteps <= 0 || maxChars <= 0) throw new IllegalArgumentException("template limits must be positive: " + maxSteps + ", " + maxChars);
  }
}
