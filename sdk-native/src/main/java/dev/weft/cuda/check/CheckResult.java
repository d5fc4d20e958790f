package dev.weft.cuda.check;

/**
 * One line of the GPU check: what was checked, whether it passed, and the numbers behind it. A skipped check (what it
 * needs is not in this build) counts as passed and prints SKIP with the reason.
 */
public record CheckResult(String name, boolean passed, String detail, boolean skipped) {
  public CheckResult(String name, boolean passed, String detail) { this(name, passed, detail, false); }

  public static CheckResult of(String name, boolean passed, String detail) { return new CheckResult(name, passed, detail); }

  public static CheckResult skip(String name, String why) { return new CheckResult(name, true, why, true); }

  /** A check that threw: the exception and where its innermost cause came from, so one device run tells enough. */
  public static CheckResult threw(String name, Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    StringBuilder where = new StringBuilder(String.valueOf(e));
    if (root != e) where.append(" caused by ").append(root);
    StackTraceElement[] frames = root.getStackTrace();
    for (int i = 0; i < Math.min(8, frames.length); i++) where.append(" | at ").append(frames[i]);
    return of(name, false, where.toString());
  }

  @Override
  public String toString() { return (skipped ? "SKIP " : passed ? "PASS " : "FAIL ") + name + "  " + detail; }
}
