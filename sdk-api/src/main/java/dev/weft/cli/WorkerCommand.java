package dev.weft.cli;

import dev.weft.elastic.ElasticWorker;
import dev.weft.launch.ParentWatch;
import dev.weft.launch.WorkerIdentity;
import dev.weft.launch.WorkerRun;
import dev.weft.metrics.prometheus.GrafanaDashboard;
import dev.weft.metrics.prometheus.MetricsEndpoint;
import dev.weft.metrics.prometheus.WeftMetrics;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.StepListener;
import dev.weft.util.NativeThreads;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weft worker}: one rank. Started by {@code weft train}, by a Kubernetes pod, or by hand;
 * identity comes from the environment (see {@link WorkerIdentity}).
 */
@Command(name = "worker", mixinStandardHelpOptions = true, description = "Run one rank (identity from the environment).")
final class WorkerCommand implements Callable<Integer> {
  @Option(names = "--spec", required = true, description = "The resolved training spec.")
  Path spec;

  @Option(names = "--run-dir", defaultValue = "run", description = "Where rank 0 writes the run outputs.")
  Path runDir;

  @Option(names = "--timeout", defaultValue = "120", description = "Seconds to wait for peers and collectives.")
  int timeoutSeconds;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a spec field (e.g. per Katib trial; repeatable).")
  java.util.List<String> overrides = new java.util.ArrayList<>();

  @Override
  public Integer call() {
    ParentWatch.startIfRequested();
    if (ElasticTrain.isOperatorAgent(System.getenv())) { // an elastic PyTorchJob's pod: this process is the node's agent
      return ElasticTrain.runFromOperatorEnv(SpecIO.read(spec, overrides), runDir, System.getenv());
    }
    WorkerIdentity id = WorkerIdentity.fromEnv();
    String t = System.getenv("WEFT_THREADS");
    int threads = t == null ? NativeThreads.perRank(1) : Integer.parseInt(t);
    TrainingSpec s = SpecIO.read(spec, overrides);
    WeftMetrics metrics = WeftMetrics.forRank(s, id.rank());
    String restarts = System.getenv(dev.weft.elastic.ElasticWorker.ENV_RESTARTS);
    if (restarts != null) metrics.setRestarts(Integer.parseInt(restarts));
    if (id.rank() == 0) GrafanaDashboard.write(runDir, s);
    try (MetricsEndpoint endpoint = MetricsEndpoint.startIfEnabled(metrics, MetricsEndpoint.port(s), id.localRank())) {
      StepListener listener = ElasticWorker.wrap(metrics.listener(new ConsoleProgress(System.out, s.train().logEvery())),
          id.rank(), System.getenv(), s.elastic());
      WorkerRun.run(s, id, runDir, threads, Duration.ofSeconds(timeoutSeconds), listener);
    } catch (ElasticWorker.Rejoin e) {
      return ElasticWorker.EXIT_REJOIN; // the elastic agent starts the next generation
    }
    return 0;
  }
}
