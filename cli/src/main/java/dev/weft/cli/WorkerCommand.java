package dev.weft.cli;

import dev.weft.worker.Worker;
import dev.weft.worker.WorkerArgs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weft worker}: one rank, or one host's ranks ({@link Worker}, which a worker process runs without this
 * command). Run once per pod or machine: identity comes from the environment.
 */
@Command(name = "worker", mixinStandardHelpOptions = true,
    description = "Run one rank, or this host's ranks (identity from the environment).")
final class WorkerCommand implements Callable<Integer> {
  @Option(names = "--spec", required = true, description = "The resolved training spec.")
  Path spec;

  @Option(names = "--run-dir", defaultValue = "run", description = "Where rank 0 writes the run outputs.")
  Path runDir;

  @Option(names = "--timeout", defaultValue = "120", description = "Seconds to wait for peers and collectives.")
  int timeoutSeconds;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a spec field (e.g. per Katib trial; repeatable).")
  List<String> overrides = new ArrayList<>();

  @Option(names = "--node-addr", paramLabel = "ADDR",
      description = "This host's address, which its ranks bind to (default: WEFT_NODE_ADDR, POD_IP, else the route to the master).")
  String nodeAddr;

  @Override
  public Integer call() {
    return Worker.run(new WorkerArgs(spec, runDir, timeoutSeconds, overrides, nodeAddr));
  }
}
