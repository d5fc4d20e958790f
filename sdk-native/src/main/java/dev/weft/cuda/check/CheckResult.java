package dev.weft.cuda.check;

/** One line of the GPU check: what was checked, whether it passed, and the numbers behind it. */
public record CheckResult(String name, boolean passed, String detail) {
  public static CheckResult of(String name, boolean passed, String detail) { return new CheckResult(name, passed, detail); }

  @Override
  public String toString() { return (passed ? "PASS " : "FAIL ") + name + "  " + detail; }
}
