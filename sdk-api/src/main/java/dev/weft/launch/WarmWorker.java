package dev.weft.launch;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One warm standby worker JVM ({@code weft standby}): started ahead with libtorch loaded and Weft's classes
 * warmed, it owns nothing (no port, no store connection) and waits on its stdin for a {@link StandbyHandoff},
 * which makes it a rank's worker in milliseconds instead of a new JVM's seconds. Its stdin stays open: when its
 * parent dies the pipe closes and it halts ({@link ParentWatch}).
 */
public final class WarmWorker {
  /** The standby's command after {@code java -cp CP}. */
  public static List<String> command(Path specFile) {
    return List.of(WorkerMain.CLASS, WorkerMain.STANDBY, "--spec", specFile.toAbsolutePath().toString());
  }

  private final Process process;
  private volatile int rank = -1;

  private WarmWorker(Process process) { this.process = process; }

  /**
   * Starts one standby with this JVM's environment less the variables {@code drop} names, plus {@code env}; its
   * output goes to {@code console}, prefixed {@code [standby]} until it is handed a rank.
   */
  public static WarmWorker start(Path specFile, Map<String, String> env, Predicate<String> drop, PrintStream console)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(JavaCommand.of(command(specFile))).redirectErrorStream(true);
    pb.environment().keySet().removeIf(drop);
    pb.environment().putAll(env);
    WarmWorker w = new WarmWorker(pb.start());
    LocalLauncher.pump(() -> w.rank, w.process, new ArrayDeque<>(), console);
    return w;
  }

  public Process process() { return process; }

  public long pid() { return process.pid(); }

  /** Makes this standby rank {@code rank}'s worker; the process is from now on that worker. */
  public Process handOff(int rank, StandbyHandoff h) throws IOException {
    this.rank = rank;
    OutputStream in = process.getOutputStream();
    in.write((h.line() + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush(); // never closed: its end-of-file would stop the worker
    return process;
  }
}
