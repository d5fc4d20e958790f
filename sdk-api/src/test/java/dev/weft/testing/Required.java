package dev.weft.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine (a reference tool, a built server, a cached image): missing, the test is skipped
 * with the reason locally and fails with it under {@code CI=true}, where a skipped test would pass as "ran no test".
 */
public final class Required {
  private Required() {}

  public static boolean underCi() { return "true".equals(System.getenv("CI")); }

  /** Skips (locally) or fails (under CI) with {@code why} unless {@code present}. */
  public static void that(boolean present, String why) {
    if (!present && underCi()) Assertions.fail(why + " (required under CI=true)");
    Assumptions.assumeTrue(present, why);
  }
}
