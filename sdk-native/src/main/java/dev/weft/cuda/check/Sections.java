package dev.weft.cuda.check;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How both halves of the GPU check print and keep to their time: the plan first (each step's planned seconds), then a
 * titled section per step with its results and its time against the plan, then a total. A device is lent for minutes,
 * so a half has a budget: a step that would start after it is listed as skipped, and the rest of the check still runs.
 */
final class Sections {
  private Sections() {}

  /** Prints the plan: every step with its planned seconds, their sum, and {@code budget} (null: none). */
  static void plan(String half, List<Step> steps, Duration budget) {
    int total = steps.stream().mapToInt(Step::plannedSeconds).sum();
    System.out.printf("-- plan of the %s (estimates for one H100/H200, not yet timed on one%s)%n", half,
        budget == null ? "" : "; budget " + budget.toSeconds() + " s, after which the remaining steps are skipped");
    steps.forEach(s -> System.out.printf("  %4d s  %s%n", s.plannedSeconds(), s.title()));
    System.out.printf("  %4d s  in all%n", total);
  }

  /** Runs {@code steps} in order within {@code budget} (counted from now); the results of all, skips included. */
  static List<CheckResult> runAll(List<Step> steps, Duration budget) {
    List<CheckResult> all = new ArrayList<>();
    long deadline = System.nanoTime() + budget.toNanos();
    for (Step s : steps) {
      if (System.nanoTime() - deadline > 0) {
        System.out.println("-- " + s.title());
        CheckResult r = CheckResult.skip(s.title(), "over the budget of " + budget.toSeconds() + " s ("
            + GpuTrainingCheck.BUDGET_ENV + " raises it)");
        System.out.println("  " + r);
        all.add(r);
        continue;
      }
      run(s, all);
    }
    return all;
  }

  /** Runs one step, printing its results and how long it took; a step that throws is one failed line. */
  static void run(Step step, List<CheckResult> all) {
    System.out.println("-- " + step.title());
    long t0 = System.nanoTime();
    List<CheckResult> part;
    try {
      part = step.body().get();
    } catch (RuntimeException e) {
      part = List.of(CheckResult.threw(step.title(), e));
    }
    part.forEach(r -> System.out.println("  " + r));
    System.out.printf("  (%s: %.1f s, planned %d s)%n", step.title(), (System.nanoTime() - t0) / 1e9, step.plannedSeconds());
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
