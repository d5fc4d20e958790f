package dev.weft.cli;

import dev.weft.plan.SpecCheck;
import dev.weft.error.WeftException;
import dev.weft.comm.NodeAddress;
import dev.weft.comm.RunToken;
import dev.weft.device.DeviceDecision;
import dev.weft.device.Devices;
import dev.weft.elastic.ElasticOptions;
import dev.weft.elastic.RendezvousBackend;
import dev.weft.launch.ConsoleProgress;
import dev.weft.launch.FreePort;
import dev.weft.launch.OutputsPreflight;
import dev.weft.launch.UserPaths;
import dev.weft.launch.WorkerMain;
import dev.weft.worker.ElasticTrain;
import dev.weft.comm.HostPlan;
import dev.weft.launch.LocalLauncher;
import dev.weft.launch.RunDirLock;
import dev.weft.log.LogFormat;
import dev.weft.metrics.MetricsJson;
import dev.weft.metrics.RunSummary;
import dev.weft.plan.MemoryPlan;
import dev.weft.plan.Preflight;
import dev.weft.spec.SpecException;
import dev.weft.spec.SpecIO;
import dev.weft.spec.SpecValidator;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.NativeThreads;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code weft train SPEC}: validate, start the workers on this machine, report. */
@Command(name = "train", mixinStandardHelpOptions = true,
    description = "Train a spec with local worker processes (or this host's part of a multi-host run).")
final class TrainCommand implements Callable<Integer> {
  @Mixin SpecOptions specOptions;

  @Option(names = "--nproc", description = "Worker processes (default: dp × tp × pp of the spec).")
  Integer nproc;

  @Option(names = "--run-dir", description = "Where metrics.jsonl, summary.json and spec.yaml go (default: runs/NAME-TIME).")
  Path runDir;

  @Option(names = "--resume", paramLabel = "latest|PATH",
      description = "Continue from the newest checkpoint under checkpoint.dir, or from one checkpoint directory.")
  String resume;

  @Option(names = "--reset-optimizer", description = "With --resume: load the weights, start the optimizer state fresh (checkpoint.resetOptimizer).")
  boolean resetOptimizer;

  @Option(names = "--allow-partial", description = "With --resume: load the tensors that match the model, name the ones skipped (checkpoint.allowPartial).")
  boolean allowPartial;

  @Option(names = "--nnodes", paramLabel = "N|MIN:MAX",
      description = "Hosts in the run. With --node-rank: a fixed run of N hosts; otherwise elastic (MIN to MAX nodes), see docs/elastic.md.")
  String nnodes;

  @Option(names = "--nproc-per-node", description = "Worker processes on this host (default 1 with --nnodes).")
  Integer nprocPerNode;

  @Option(names = "--node-rank", paramLabel = "I", description = "Fixed multi-host run: this host's index, 0..N-1 (host 0 runs rank 0).")
  Integer nodeRank;

  @Option(names = "--master-addr", paramLabel = "ADDR", description = "Fixed multi-host run: host 0's address, where rank 0 hosts the store.")
  String masterAddr;

  @Option(names = "--master-port", paramLabel = "PORT", defaultValue = "29500", description = "Fixed multi-host run: the store's port (default 29500).")
  int masterPort;

  @Option(names = "--node-addr", paramLabel = "ADDR",
      description = "This host's address, which its ranks bind to (default: WEFT_NODE_ADDR, POD_IP, else the route to the master).")
  String nodeAddr;

  @Option(names = "--rdzv-backend", paramLabel = "c10d|etcd",
      description = "Elastic: c10d (an agent hosts the store; default) or etcd (an etcd you run; any node may be lost).")
  String rdzvBackend;

  @Option(names = "--rdzv-endpoint", paramLabel = "HOST:PORT",
      description = "Elastic: the rendezvous store: c10d, the agent on this host hosts it (default 127.0.0.1:29400); etcd, its client URL's host:port (default 127.0.0.1:2379).")
  String rdzvEndpoint;

  @Option(names = "--rdzv-id", paramLabel = "ID", description = "Elastic: the run's id, the same on every node (default: the spec name).")
  String rdzvId;

  @Option(names = "--join-window", paramLabel = "SECONDS", description = "Elastic: how long a rendezvous round waits for more nodes (default: elastic.joinWindowSeconds, 2).")
  Double joinWindowS;

  /** The memory check of this host's ranks, before any starts. */
  private static void preflight(TrainingSpec spec, HostPlan plan) {
    MemoryPlan.ranks(spec).ifPresent(all -> {
      int first = plan.worker(0).rank();
      Preflight.check(spec, all.subList(first, Math.min(all.size(), first + plan.nprocPerNode())), Preflight.machineBytes());
    });
  }

  @Override
  public Integer call() throws Exception {
    if (resume != null) {
      OutputsPreflight.oneResume(resume, specOptions.read().checkpoint().resume());
      specOptions.overrides.add("checkpoint.resume=" + resume);
    }
    if (resetOptimizer) specOptions.overrides.add("checkpoint.resetOptimizer=true");
    if (allowPartial) specOptions.overrides.add("checkpoint.allowPartial=true");
    TrainingSpec spec = SpecValidator.mesh(specOptions.read()); // dp=-1 would reach the host plan as -1 processes
    LogFormat.useSpec(spec.logging().format());
    if (nproc != null && nproc < 1) throw new SpecException("--nproc", nproc + " must be at least 1 worker process");
    if (nprocPerNode != null && nprocPerNode < 1) throw new SpecException("--nproc-per-node", nprocPerNode + " must be at least 1");
    HostPlan plan = fixedPlan(spec);
    if (plan == null && (nnodes != null || spec.elastic().enabled())) return elastic(spec);
    if (plan == null) plan = HostPlan.single(nproc == null ? spec.worldSize() : nproc, FreePort.find());
    SpecCheck.validate(spec, plan.worldSize());
    preflight(spec, plan); // before the device probe, which loads libtorch: a layout that cannot fit is refused in a moment
    DeviceDecision device = Devices.decide(spec.device()); // device=cuda where it cannot run: exit 2 before any worker starts
    Path dir = runDir != null ? runDir
        : Path.of("runs", spec.name() + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    UserPaths.writableDir(dir, "--run-dir");
    ResumePreflight.check(spec, dir); // nothing intact to resume: one line, exit 2, before any rank starts
    OutputsPreflight.check(spec, dir); // checkpoints, TensorBoard: one line, exit 2, before any rank starts
    Map<String, String> tokenEnv = tokenForHosts(plan);
    // the hosts of one run share a directory under one identity, its token's included: another run's are refused
    String sharedBy = plan.nnodes() == 1 ? null : "hosts " + plan.masterAddr() + ":" + plan.masterPort() + " token="
        + RunToken.identity(tokenEnv.getOrDefault(RunToken.ENV, RunToken.fromEnv()));
    try (RunDirLock lock = RunDirLock.acquire(dir, sharedBy, "--run-dir")) { // held until the run ends
      return train(spec, plan, device, dir, tokenEnv);
    }
  }

  private Integer train(TrainingSpec spec, HostPlan plan, DeviceDecision device, Path dir, Map<String, String> tokenEnv) {
    Path resolved = dir.resolve("spec.yaml");
    SpecIO.write(spec, resolved);
    int n = plan.nprocPerNode();
    System.out.printf("weft: training %s on %d worker process(es)%s, dp=%d tp=%d pp=%d; run dir %s%n", spec.name(), n,
        plan.nnodes() == 1 ? "" : " on host " + plan.nodeRank() + " of " + plan.nnodes() + " (" + plan.nodeAddr() + ", master "
            + plan.masterAddr() + ":" + plan.masterPort() + ")",
        spec.parallel().dp(), spec.parallel().tp(), spec.parallel().pp(), dir);
    System.out.println("weft: " + device.note());
    ConsoleProgress.View view = ConsoleProgress.view(System.out);
    LocalLauncher launcher = new LocalLauncher(
        List.of(WorkerMain.CLASS, WorkerMain.WORKER, "--spec", resolved.toString(), "--run-dir", dir.toString()),
        dev.weft.models.ModelFactories.withDataChecked(tokenEnv, spec), view.stream()) // the workers skip the data scan done here
        .grace(spec.deployment().terminationGraceSeconds());
    LocalLauncher.Outcome outcome = launcher.run(plan, NativeThreads.perRank(n));
    view.finish();
    if (!outcome.ok()) {
      System.err.println("weft: training failed: " + outcome.reason());
      return outcome.exitCode();
    }
    if (plan.nodeRank() != 0) {
      System.out.printf("weft: done — ranks %d..%d finished; rank 0's outputs are on host 0%n", plan.worker(0).rank(),
          plan.worker(n - 1).rank());
      return 0;
    }
    RunSummary s = MetricsJson.readSummary(dir);
    if ("preempted".equals(s.status())) {
      System.out.println("weft: " + s.error() + " (summary: " + dir.resolve("summary.json") + ")");
      return 0;
    }
    System.out.printf("weft: done — %d steps, loss %.4f → %.4f, %.0f tokens/s, replicas consistent: %s, %.1f s. Summary: %s%n",
        s.steps(), s.initialLoss(), s.finalLoss(), s.tokensPerS(), s.replicasConsistent(), s.wallS(), dir.resolve("summary.json"));
    return 0;
  }

  /** A multi-host run without {@code WEFT_RUN_TOKEN}: host 0 makes the run one and prints it for the other hosts. */
  private static Map<String, String> tokenForHosts(HostPlan plan) {
    if (plan.nnodes() == 1 || plan.nodeRank() != 0 || !RunToken.fromEnv().isEmpty()) return Map.of();
    String token = RunToken.generate();
    System.out.println("weft: no " + RunToken.ENV + " was given, so this run has a new one: start the other hosts with "
        + RunToken.ENV + "=" + token + " in their environment (docs/security.md)");
    return Map.of(RunToken.ENV, token);
  }

  /** The torchrun-style fixed multi-host plan when {@code --node-rank} is given; null otherwise. */
  private HostPlan fixedPlan(TrainingSpec spec) {
    if (nodeRank == null) {
      if (masterAddr != null) throw new dev.weft.error.BadInputException("--master-addr needs --node-rank and --nnodes (a fixed multi-host run)");
      return null;
    }
    if (nnodes == null || nnodes.contains(":")) {
      throw new dev.weft.error.BadInputException("--node-rank needs --nnodes N (a whole number of hosts; MIN:MAX is elastic, which takes --rdzv-endpoint)");
    }
    if (masterAddr == null) throw new dev.weft.error.BadInputException("--node-rank needs --master-addr (host 0's address)");
    int hosts;
    try {
      hosts = Integer.parseInt(nnodes.trim());
    } catch (NumberFormatException e) {
      throw new dev.weft.error.BadInputException("--nnodes=" + nnodes + " is not a whole number of hosts");
    }
    int perHost = nprocPerNode != null ? nprocPerNode : nproc != null ? nproc : 1;
    HostPlan p = new HostPlan(hosts, nodeRank, perHost, masterAddr, masterPort, null);
    if (p.worldSize() != spec.worldSize()) {
      throw new dev.weft.error.BadInputException("--nnodes " + hosts + " × --nproc-per-node " + perHost + " = " + p.worldSize()
          + " ranks, but the spec's dp × tp × pp = " + spec.worldSize() + "; change one to match");
    }
    return p.withNodeAddr(NodeAddress.resolve(nodeAddr, System.getenv(), masterAddr, NodeAddress::routeTo));
  }

  /** This process becomes the node's elastic agent ({@code --nnodes MIN:MAX}, or {@code elastic.enabled} in the spec). */
  private int elastic(TrainingSpec spec) {
    var e = spec.elastic();
    int[] nodes = nnodes != null ? ElasticOptions.parseNodes(nnodes) : new int[] {e.minNodes(), e.maxNodes()};
    RendezvousBackend backend = ElasticOptions.backend(spec, rdzvBackend, "--rdzv-backend");
    ElasticOptions o = ElasticOptions.of(spec, nodes, nprocPerNode == null ? 1 : nprocPerNode, backend,
        ElasticOptions.endpoint(spec, backend, rdzvEndpoint), rdzvId == null ? spec.name() : rdzvId,
        joinWindowS == null ? null : ElasticOptions.seconds(joinWindowS));
    return ElasticTrain.run(spec, o, runDir != null ? runDir : Path.of("runs", spec.name() + "-" + o.runId()), true);
  }
}
