package dev.weft.launch;

import java.nio.file.Path;

/** A process that holds a run directory's lock until its stdin closes: {@code RunDirHolder DIR [RUN]}. */
public final class RunDirHolder {
  private RunDirHolder() {}

  public static void main(String[] args) throws Exception {
    try (RunDirLock lock = RunDirLock.acquire(Path.of(args[0]), args.length > 1 ? args[1] : null, "--run-dir")) {
      System.out.println("held " + ProcessHandle.current().pid());
      System.out.flush();
      while (System.in.read() >= 0) {
        // until the test closes our stdin or kills us
      }
    }
  }
}
