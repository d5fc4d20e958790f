package dev.weft.cli;

import dev.weft.launch.WorkerMain;
import dev.weft.worker.WorkerProcess;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weft standby}: a warm worker JVM an elastic agent keeps ready (see {@code dev.weft.launch.WarmWorker}); the
 * agents start {@link WorkerProcess} directly, this command runs the same.
 */
@Command(name = WorkerMain.STANDBY, hidden = true,
    description = "A warm standby worker: waits on stdin for its identity (started by the elastic agent).")
final class StandbyCommand implements Callable<Integer> {
  @Option(names = "--spec", required = true, description = "The run's spec (warmed up with; the handoff names it again).")
  Path spec;

  @Override
  public Integer call() {
    return WorkerProcess.run(List.of(WorkerMain.STANDBY, "--spec", spec.toString()));
  }
}
