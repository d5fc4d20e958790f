package dev.weft.worker;

import dev.weft.error.BadInputException;
import dev.weft.launch.ParentWatch;
import dev.weft.launch.StandbyHandoff;
import dev.weft.launch.Warmup;
import dev.weft.launch.WorkerMain;
import dev.weft.log.LogFormat;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The main class of a worker process ({@link WorkerMain#CLASS}): {@code worker ARGS} ({@link Worker}) or
 * {@code standby --spec FILE} (a warm JVM an elastic agent keeps ready). It needs sdk-api alone, so an application's
 * {@code Trainer.launch()} and elastic agents start workers without the {@code weft} command on the class path.
 * Errors are one {@code weft:} line and an exit code ({@link ErrorLine}); {@code WEFT_DEBUG=1} adds the stack trace.
 */
public final class WorkerProcess {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(WorkerProcess.class);

  private WorkerProcess() {}

  public static void main(String[] args) {
    LogFormat.current(); // WEFT_LOG_FORMAT=json turns every line into an object from the first one
    int code = run(Arrays.asList(args));
    System.out.flush();
    System.exit(code);
  }

  /** Runs {@code args} ({@code worker ...} or {@code standby ...}); an exception becomes its line and exit code. */
  public static int run(List<String> args) {
    try {
      return dispatch(args);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return report(e);
    } catch (RuntimeException e) {
      return report(e);
    }
  }

  private static int dispatch(List<String> args) throws InterruptedException {
    String cmd = args.isEmpty() ? "" : args.get(0);
    List<String> rest = args.isEmpty() ? List.of() : args.subList(1, args.size());
    if (cmd.equals(WorkerMain.WORKER)) return Worker.run(WorkerArgs.parse(rest));
    if (cmd.equals(WorkerMain.STANDBY)) return standby(WorkerArgs.parse(rest).spec());
    throw new BadInputException("a worker process runs `" + WorkerMain.WORKER + " --spec FILE ...` or `" + WorkerMain.STANDBY
        + " --spec FILE`, not `" + String.join(" ", args) + "`");
  }

  /** Warms up, then waits on stdin for its handoff and runs the worker command it was handed, in this JVM. */
  private static int standby(Path spec) throws InterruptedException {
    CompletableFuture<String> handoff = new CompletableFuture<>();
    ParentWatch.start(handoff::complete); // end-of-file (the agent is gone) halts this JVM: the bound of the wait below
    double warm = Warmup.run(spec);
    StandbyHandoff.parse(new StandbyHandoff(List.of(), Map.of("W", "1")).line()); // Jackson's model of a handoff, built ahead
    log.info("standby pid {} warm in {} s", ProcessHandle.current().pid(), String.format("%.2f", warm));
    StandbyHandoff h;
    try {
      h = StandbyHandoff.parse(handoff.get());
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
    StandbyHandoff.accept(h);
    return dispatch(h.args());
  }

  private static int report(Exception e) {
    System.err.println("weft: " + ErrorLine.of(e, "set WEFT_DEBUG=1 for the stack trace"));
    if (System.getenv("WEFT_DEBUG") != null) e.printStackTrace(System.err);
    return ErrorLine.exitCode(e);
  }
}
