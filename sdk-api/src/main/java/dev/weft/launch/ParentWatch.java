package dev.weft.launch;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A worker started by the launcher reads its stdin until end-of-file: the pipe closes when the
 * launcher dies, however it dies (even SIGKILL), and the worker then halts. No orphans. A warm
 * standby reads its identity from the same pipe ({@link StandbyHandoff}): the lines its parent writes.
 */
public final class ParentWatch {
  public static final String ENV = "WEFT_WATCH_PARENT";
  private static boolean started;

  private ParentWatch() {}

  public static void startIfRequested() {
    if ("1".equals(System.getenv(ENV))) start(line -> {});
  }

  /** Watches stdin from a daemon thread (once per JVM): each line goes to {@code onLine}; end-of-file halts. */
  public static synchronized void start(Consumer<String> onLine) {
    if (started) return;
    started = true;
    Thread t = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) onLine.accept(line);
      } catch (IOException ignored) {
        // a broken pipe means the same as end-of-file
      }
      Runtime.getRuntime().halt(143);
    }, "weft-parent-watch");
    t.setDaemon(true);
    t.start();
  }
}
