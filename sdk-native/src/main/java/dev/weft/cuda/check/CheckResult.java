package dev.weft.cuda.check;

/**
 * One line of the GPU check: what was checked, whether it passed, and the numbers behind it. A skipped check (what it
 * needs is not in this build) counts as passed and prints SKIP with the reason.
 */
public record CheckResult(String name, boolean passed, String detail, boolean skipped) {
  public CheckResult(String name, boolean passed, String detail) { this(name, passed, detail, false); }

  public static CheckResult of(String name, boolean passed, String detail) { return new CheckResult(name, passed, detail); }

  public static CheckResult skip(String name, String why) { return new CheckResult(name, true, why, true); }

  @Override
  public String toString() { return (skipped ? "SKIP " : passed ? "PASS " : "FAIL ") + name + "  " + detail; }
}
