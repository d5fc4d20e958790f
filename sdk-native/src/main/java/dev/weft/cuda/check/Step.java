package dev.weft.cuda.check;

import java.util.List;
import java.util.function.Supplier;

/**
 * One section of the GPU check: a title, the seconds it is planned to take on one H100/H200 (an estimate until a
 * device has run it; the plan is printed first, and each section prints its time against it), and what it runs.
 */
record Step(String title, int plannedSeconds, Supplier<List<CheckResult>> body) {
  /** A step that needs a device, listed on a dry run as skipped (so the plan and the dry walk hold the same steps). */
  static Step deviceOnly(String title, int plannedSeconds, Target target, Supplier<List<CheckResult>> body) {
    return new Step(title, plannedSeconds, target.dry()
        ? () -> List.of(CheckResult.skip(title, "dry run: it measures a CUDA device")) : body);
  }
}
