package dev.weft.data.prepare;

import dev.weft.spec.SpecException;
import java.util.Locale;

/**
 * How long one document or conversation may be, in tokens ({@code maxLength} 0: any length), and what is done with a
 * longer one: {@code RIGHT} keeps its first {@code maxLength} tokens, {@code LEFT} its last, {@code DROP} leaves it
 * out. Prepare counts what each costs, targets included, and says so.
 */
public record LengthPolicy(int maxLength, Truncation truncation) {
  /** What is done with a document longer than {@code maxLength}. */
  public enum Truncation { RIGHT, LEFT, DROP }

  /** Every document whole. */
  public static final LengthPolicy NONE = new LengthPolicy(0, Truncation.RIGHT);

  public LengthPolicy {
    if (maxLength < 0) throw new SpecException("--max-length", maxLength + " must be at least 1 (or 0 for any length)");
    if (truncation == null) truncation = Truncation.RIGHT;
  }

  /** {@code --max-length N --truncation right|left|drop}. */
  public static LengthPolicy of(int maxLength, String truncation) {
    try {
      return new LengthPolicy(maxLength, Truncation.valueOf(truncation.toUpperCase(Locale.ROOT)));
    } catch (IllegalArgumentException e) {
      throw new SpecException("--truncation", "'" + truncation + "' is not right, left or drop");
    }
  }

  public boolean limits() { return maxLength > 0; }
}
