package dev.weft.cuda.check;

import java.util.List;
import java.util.function.Supplier;

/** How both halves of the GPU check print: a titled section per step with its results and its time, then a total. */
final class Sections {
  private Sections() {}

  /** Runs one section, printing its results and how long it took; a section that throws is one failed line. */
  static void run(String title, Supplier<List<CheckResult>> body, List<CheckResult> all) {
    System.out.println("-- " + title);
    long t0 = System.nanoTime();
    List<CheckResult> part;
    try {
      part = body.get();
    } catch (RuntimeException e) {
      part = List.of(CheckResult.of(title, false, String.valueOf(e)));
    }
    part.forEach(r -> System.out.println("  " + r));
    System.out.printf("  (%s: %.1f s)%n", title, (System.nanoTime() - t0) / 1e9);
    all.addAll(part);
  }

  /** Prints the totals; true when nothing failed (skips count as passed). */
  static boolean summary(List<CheckResult> results) {
    long failed = results.stream().filter(r -> !r.passed()).count();
    long skipped = results.stream().filter(CheckResult::skipped).count();
    System.out.println("== " + (results.size() - failed - skipped) + " passed, " + failed + " failed"
        + (skipped > 0 ? ", " + skipped + " skipped" : "") + " ==");
    return failed == 0;
  }
}
