package dev.weft.testing;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The processes a test started, each killed with everything it started after the test, whatever its outcome: a
 * launcher's workers outlive a failed assertion otherwise and load the machine for the tests after it. Register as
 * {@code @RegisterExtension final StartedProcesses started = new StartedProcesses();}.
 */
public final class StartedProcesses implements AfterEachCallback {
  private final List<Process> started = new ArrayList<>();

  /** Remembers {@code p} to kill after the test; returns it. */
  public Process add(Process p) {
    started.add(p);
    return p;
  }

  @Override
  public void afterEach(ExtensionContext context) {
    for (Process p : started) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    started.clear();
  }
}
