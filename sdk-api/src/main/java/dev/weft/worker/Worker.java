package dev.weft.worker;

import dev.weft.comm.ClusterEnv;
import dev.weft.comm.HostPlan;
import dev.weft.comm.NodeAddress;
import dev.weft.comm.WorkerIdentity;
import dev.weft.elastic.ElasticWorker;
import dev.weft.elastic.FixedRunWatch;
import dev.weft.launch.ConsoleProgress;
import dev.weft.launch.LocalLauncher;
import dev.weft.launch.ParentWatch;
import dev.weft.launch.StandbyHandoff;
import dev.weft.launch.WorkerMain;
import dev.weft.launch.WorkerRun;
import dev.weft.log.LogContext;
import dev.weft.log.LogFormat;
import dev.weft.metrics.prometheus.GrafanaDashboard;
import dev.weft.metrics.prometheus.MetricsEndpoint;
import dev.weft.metrics.prometheus.WeftMetrics;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.train.RunPreemptedException;
import dev.weft.train.StepListener;
import dev.weft.util.NativeCache;
import dev.weft.util.NativeThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One rank, or one host's ranks ({@code worker}). Started by a launcher (as a rank), or once per pod or machine (as a
 * host): identity comes from the environment ({@link ClusterEnv}). A host with more than one process per node launches
 * its ranks, like torchrun, with one failure policy. Returns the process's exit code.
 */
public final class Worker {
  private Worker() {}

  public static int run(WorkerArgs a) {
    ParentWatch.startIfRequested();
    Map<String, String> env = StandbyHandoff.workerEnv(); // a warm standby's variables came with its handoff
    TrainingSpec s = SpecIO.read(a.spec(), a.overrides());
    LogFormat.useSpec(s.logging().format());
    if (ElasticTrain.isOperatorAgent(env)) { // an elastic PyTorchJob's pod: this process is the node's agent
      return ElasticTrain.runFromOperatorEnv(s, a.runDir(), env);
    }
    WorkerIdentity id;
    if (ClusterEnv.isRank(env)) {
      id = ClusterEnv.worker(env);
    } else {
      HostPlan plan = ClusterEnv.host(env);
      plan = plan.withNodeAddr(NodeAddress.resolve(a.nodeAddr(), env, plan.masterAddr(), NodeAddress::routeTo));
      if (plan.nprocPerNode() > 1) return launchHost(a, plan, s.deployment().terminationGraceSeconds());
      id = plan.worker(0);
    }
    NativeCache.load(); // before anything touches libtorch: a cold cache is extracted under the lock
    String t = env.get("WEFT_THREADS");
    int threads = t == null ? NativeThreads.perRank(1) : Integer.parseInt(t);
    LogContext.rank(id.rank());
    WeftMetrics metrics = WeftMetrics.forRank(s, id.rank());
    String restarts = env.get(ElasticWorker.ENV_RESTARTS);
    if (restarts != null) metrics.setRestarts(Integer.parseInt(restarts));
    if (id.rank() == 0) GrafanaDashboard.write(a.runDir(), s);
    try (MetricsEndpoint endpoint = MetricsEndpoint.startIfEnabled(metrics, MetricsEndpoint.bind(s), MetricsEndpoint.port(s), id.localRank())) {
      StepListener listener = ElasticWorker.wrap(metrics.listener(new ConsoleProgress(System.out, s.train().logEvery())),
          id.rank(), env, s.elastic());
      try (FixedRunWatch watch = FixedRunWatch.startIfMultiHost(id, env, s.elastic())) { // a partition ends both sides
        WorkerRun.run(s, id, a.runDir(), threads, Duration.ofSeconds(a.timeoutSeconds()), listener, true);
        if (watch != null) watch.finished();
      }
    } catch (ElasticWorker.Rejoin e) {
      return ElasticWorker.EXIT_REJOIN; // the elastic agent starts the next generation
    } catch (RunPreemptedException e) { // saved at the step every rank agreed on; an agent re-forms without the leaver
      return env.get(ElasticWorker.ENV_STORE) != null ? ElasticWorker.EXIT_REJOIN : 0;
    }
    return 0;
  }

  /** This host's ranks as child processes running this same command, each with its identity in its env. */
  private static int launchHost(WorkerArgs a, HostPlan plan, int graceSeconds) {
    List<String> cmd = new ArrayList<>(List.of(WorkerMain.CLASS, WorkerMain.WORKER));
    cmd.addAll(a.argv());
    System.out.printf("weft: host %d of %d starting ranks %d..%d of %d (master %s:%d, this host %s)%n", plan.nodeRank(),
        plan.nnodes(), plan.worker(0).rank(), plan.worker(plan.nprocPerNode() - 1).rank(), plan.worldSize(), plan.masterAddr(),
        plan.masterPort(), plan.nodeAddr());
    LocalLauncher.Outcome o = new LocalLauncher(cmd, Map.of(), System.out).grace(graceSeconds)
        .run(plan, NativeThreads.perRank(plan.nprocPerNode()));
    if (!o.ok()) System.err.println("weft: training failed: " + o.reason());
    return o.exitCode();
  }
}
