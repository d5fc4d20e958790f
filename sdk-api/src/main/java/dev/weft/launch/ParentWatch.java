package dev.weft.launch;

import java.io.IOException;
import java.io.InputStream;

/**
 * A worker started by the launcher reads its stdin until end-of-file: the pipe closes when the
 * launcher dies, however it dies (even SIGKILL), and the worker then halts. No orphans.
 */
public final class ParentWatch {
  public static final String ENV = "WEFT_WATCH_PARENT";

  private ParentWatch() {}

  public static void startIfRequested() {
    if (!"1".equals(System.getenv(ENV))) return;
    Thread t = new Thread(() -> {
      try {
        InputStream in = System.in;
        while (in.read() >= 0) {
          // the launcher never writes; any byte is ignored
        }
      } catch (IOException ignored) {
        // a broken pipe means the same as end-of-file
      }
      Runtime.getRuntime().halt(143);
    }, "weft-parent-watch");
    t.setDaemon(true);
    t.start();
  }
}
