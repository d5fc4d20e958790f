package dev.weft.cli;

import dev.weft.launch.ParentWatch;
import dev.weft.launch.StandbyHandoff;
import dev.weft.launch.Warmup;
import dev.weft.launch.WorkerMain;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weft standby}: a warm worker JVM an elastic agent keeps ready (see {@code dev.weft.launch.WarmWorker}).
 * It warms up, then waits for its handoff on stdin and runs the worker command it was handed, in this JVM.
 */
@Command(name = WorkerMain.STANDBY, hidden = true,
    description = "A warm standby worker: waits on stdin for its identity (started by the elastic agent).")
final class StandbyCommand implements Callable<Integer> {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StandbyCommand.class);

  @Option(names = "--spec", required = true, description = "The run's spec (warmed up with; the handoff names it again).")
  Path spec;

  @Override
  public Integer call() throws InterruptedException {
    CompletableFuture<String> handoff = new CompletableFuture<>();
    ParentWatch.start(handoff::complete); // end-of-file (the agent is gone) halts this JVM: the bound of the wait below
    double warm = Warmup.run(spec);
    picocli.CommandLine worker = WeftMain.commandLine(); // built ahead: picocli's model of every command
    StandbyHandoff.parse(new StandbyHandoff(java.util.List.of(), java.util.Map.of("W", "1")).line()); // and Jackson's of a handoff
    log.info("standby pid {} warm in {} s", ProcessHandle.current().pid(), String.format("%.2f", warm));
    StandbyHandoff h;
    try {
      h = StandbyHandoff.parse(handoff.get());
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
    StandbyHandoff.accept(h);
    return worker.execute(h.args().toArray(String[]::new));
  }
}
