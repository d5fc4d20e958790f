package dev.weft.elastic;

import dev.weft.spec.Endpoint;
import dev.weft.comm.CommException;
import dev.weft.comm.NodeAddress;
import dev.weft.comm.RunToken;
import dev.weft.comm.StoreCalls;
import dev.weft.launch.LocalLauncher;
import dev.weft.launch.ParentWatch;
import dev.weft.launch.RunDirLock;
import dev.weft.launch.WorkerMain;
import dev.weft.log.JsonLine;
import dev.weft.log.LogFormat;
import dev.weft.preempt.GracePeriod;
import dev.weft.preempt.Preemption;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.NativeThreads;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One per node: joins rendezvous rounds, runs this node's workers of each generation, watches them
 * (exits, heartbeats, step progress) and the other nodes' agents, and on a failure or a node waiting
 * to join ends the generation, re-rendezvous and restarts the workers on the new mesh from the
 * latest checkpoint. With c10d the first agent to bind the rendezvous endpoint hosts the store; with etcd
 * every agent is a client of the user's etcd.
 */
public final class ElasticAgent {
  private static final Logger log = LoggerFactory.getLogger(ElasticAgent.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration STOP_GRACE = Duration.ofSeconds(2);
  // after a failure a worker is blocked in a collective with a lost peer or about to be: SIGTERM only sets its preemption
  // flag, which no collective will carry, so the grace was always spent in full (0.5 s of every partition's recovery)
  private static final Duration FAILED_GRACE = Duration.ofMillis(100);

  /** The end of an agent's run: exit code 0 when training completed. */
  public record Outcome(int exitCode, String message, int restarts, int generations, boolean left) {
    Outcome(int exitCode, String message, int restarts, int generations) { this(exitCode, message, restarts, generations, false); }
    /** This node left on SIGTERM ({@code left}): the run goes on without it, whatever rank 0 wrote here before. */
    static Outcome leftRun(String when, int restarts, int generations) { return new Outcome(0, "left the run " + when, restarts, generations, true); }
    public boolean ok() { return exitCode == 0; }
  }

  private final ElasticOptions o;
  private final PrintStream console;
  private final String nodeId;
  private volatile LocalWorkers current;
  private String nodeAddress;
  private boolean mintToken;
  private String token = ""; // the run token this agent and its workers use

  public ElasticAgent(ElasticOptions options, PrintStream console) {
    this.o = options;
    this.console = console;
    this.nodeId = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
  }

  /** {@code weft train --nnodes} without a token: the agent that hosts the c10d store makes one and prints it. */
  public ElasticAgent mintTokenIfNone() {
    mintToken = true;
    return this;
  }

  /** This node's agent with the spec's elastic settings (rendezvous included), one worker per node (the DSL's launch). */
  public static LocalLauncher.Outcome launchLocal(TrainingSpec spec, Path runDir, PrintStream console) {
    var e = spec.elastic();
    RendezvousBackend backend = ElasticOptions.backend(spec, null, "elastic.rdzvBackend");
    ElasticOptions o = ElasticOptions.of(spec, new int[] {e.minNodes(), e.maxNodes()}, 1, backend,
        ElasticOptions.endpoint(spec, backend, null), spec.name(), null);
    Outcome out = new ElasticAgent(o, console).run(spec, runDir);
    return new LocalLauncher.Outcome(out.exitCode(), -1, out.message());
  }

  /** Runs until the training completes, restarts run out, or rendezvous fails. */
  public Outcome run(TrainingSpec spec, Path runDir) {
    MembershipPlan.Shape shape = MembershipPlan.Shape.of(spec, o.procsPerNode());
    MembershipPlan.requireAllWorkable(o.minNodes(), o.maxNodes(), shape);
    // the store first: a node with another token is refused there before it writes anything
    KeyValue root;
    try {
      // twice the failure timeout: a busy store is not mistaken for a partition; a cut-off node still leaves within ~15 s
      RendezvousBackend.Opened opened = o.backend().open(o.endpoint(), true, RunToken.fromEnv(), mintToken,
          o.failureTimeout().multipliedBy(2), o.storeConnectTimeout(), this::say);
      root = opened.kv();
      token = opened.token();
    } catch (CommException e) {
      return new Outcome(1, e.getMessage(), 0, 0);
    }
    // the agents of one run may share a directory (one host, or shared storage): they are the same run, token included
    try (RunDirLock lock = RunDirLock.acquire(runDir, "elastic " + o.runId() + "@" + o.endpoint() + " token=" + RunToken.identity(token),
        "--run-dir")) {
      return runLocked(spec, runDir, shape, root);
    }
  }

  private Outcome runLocked(TrainingSpec spec, Path runDir, MembershipPlan.Shape shape, KeyValue root) {
    String ownCkptDir = ResumeCheck.location(spec.checkpoint().dir(), runDir);
    int every = spec.checkpoint().every() > 0 ? spec.checkpoint().every() : 1;
    Path specFile = runDir.resolve("spec.yaml");
    // which run wrote it: the lock already keeps another token's agent out; this names the run to whoever reads the file
    SpecIO.write(spec, specFile, "written by elastic run " + o.runId() + "@" + o.endpoint() + ", run token " + RunToken.identity(token));
    if (token.isEmpty()) {
      say("warning: no " + RunToken.ENV + ", so any process that can reach " + o.endpoint() + " can read and change this run's keys"
          + " (end a generation, redirect its checkpoints); give every node the same " + RunToken.ENV + " (docs/security.md)");
    }
    nodeAddress = NodeAddress.resolve(null, o.endpoint().host());
    try {
      return generations(spec, runDir, root, shape, ownCkptDir, every, specFile);
    } catch (StoreCalls.StoreUnreachableException e) {
      // cut off (or the store's host is gone): stop this node's workers and leave with the reason, never hang
      if (current != null) current.stop(Duration.ZERO);
      say("stopping: " + e.getMessage());
      return new Outcome(1, e.getMessage(), 0, 0);
    }
  }

  private Outcome generations(TrainingSpec spec, Path runDir, KeyValue root, MembershipPlan.Shape shape, String ownCkptDir, int every,
                              Path specFile) {
    KeyValue kv = root.under(runPrefix());
    if (o.backend() == RendezvousBackend.ETCD && kv.getOrNull("complete") != null) {
      // etcd outlives runs (a TCPStore dies with its run): this id names a finished run, not one to join late
      return new Outcome(2, "--rdzv-id '" + o.runId() + "' names a run that already completed on etcd at " + o.endpoint()
          + "; use a new --rdzv-id, or delete its keys: etcdctl --endpoints " + o.endpoint() + " del --prefix weft/"
          + RunToken.keyPrefix(token) + "elastic/" + runPrefix(), 0, 0);
    }
    // every generation must resume from the same checkpoints whichever node hosts rank 0: the first agent's directory wins
    String ckptDir = kv.setIfAbsent("checkpoint-dir", ownCkptDir);
    if (!ckptDir.equals(ownCkptDir)) {
      say("checkpoints of this run go to " + ckptDir + " (agreed with the other nodes; across hosts it must be shared storage)");
    }
    RendezvousRound rounds = new RendezvousRound(kv, new RendezvousRound.Settings(o.maxNodes(), o.joinWindow(),
        o.rendezvousTimeout(), POLL, n -> MembershipPlan.largestWorkable(n, o.minNodes(), o.maxNodes(), shape)), System::nanoTime);
    MembershipLog history = new MembershipLog(kv, runDir);
    Standbys standbys = new Standbys(spec.elastic().standby(), specFile, nodeEnv(), console, this::say);
    Thread stopper = new Thread(() -> {
      standbys.close();
      if (current != null) current.stop(Duration.ZERO);
    }, "weft-agent-stop-workers");
    Runtime.getRuntime().addShutdownHook(stopper);
    int generations = 0;
    int lastRound = -1;
    GracePeriod grace = GracePeriod.of(System.getenv(), spec.deployment().terminationGraceSeconds());
    PlannedLeave leave = new PlannedLeave(grace, this::say);
    try (Preemption.Guard sigterm = Preemption.guard("the elastic agent", grace.superviseDeadline()); standbys;
         ResumeCheck checkpoints = new ResumeCheck(ckptDir, runDir.resolve(".checkpoint-work").resolve("agent-" + nodeId), RunToken.identity(token),
        this::say)) {
      history.publishTo(checkpoints.record(runDir));
      // no standby before the first generation: warming one would compete with this and the other agents' joins for
      // the cores (a loaded machine then misses the join window); the monitor starts them after the first step
      while (true) {
        if (PlannedLeave.requested()) return Outcome.leftRun("(SIGTERM) between generations", history.restarts(), generations);
        say("joining rendezvous " + o.runId() + " at " + o.endpoint() + " as " + nodeId);
        RendezvousRound.Membership m = rounds.join(nodeId);
        if (m == null) return new Outcome(0, "the run completed before this node joined", history.restarts(), generations);
        long sealedAt = System.currentTimeMillis();
        generations++;
        lastRound = m.round();
        MembershipPlan plan = MembershipPlan.forNodes(m.nodes(), shape);
        KeyValue gen = kv.under(RendezvousRound.key(m.round(), ""));
        String master = MasterAddress.agree(gen, m, nodeAddress, o.rendezvousTimeout(), POLL);
        boolean resume = m.round() > 0 && checkpoints.hasCheckpoint();
        List<String> command = workerCommand(specFile, runDir, plan, ckptDir, every, resume);
        say("generation " + m.round() + ": node " + m.nodeRank() + " of " + m.nodes() + ", world size " + plan.worldSize()
            + ", dp=" + plan.dp() + " microBatches=" + plan.microBatches() + (resume ? ", resuming from the latest checkpoint" : ""));
        long launchedAt = System.currentTimeMillis();
        GenerationRecord record = m.nodeRank() == 0 ? startRecord(rounds, m, plan, sealedAt, launchedAt) : null;
        if (record != null) {
          history.record(record);
          history.writeElasticJson(m.round());
        }
        List<Integer> ranks = IntStream.range(0, o.procsPerNode()).map(l -> m.nodeRank() * o.procsPerNode() + l).boxed().toList();
        current = LocalWorkers.start(command, ranks, rank -> env(rank, m, plan, master, history.restarts()), standbys, console,
            this::say);
        GenerationMonitor.Ended end = new GenerationMonitor(o, current, standbys::refill, this::say, POLL)
            .supervise(m, plan, gen, rounds, every, spec.train().steps(), record, history, leave);
        switch (end.how()) {
          case COMPLETED -> {
            // "done" is this node's last write: the c10d store's host leaves once every node has said it, so whatever
            // else this node needs from the store (the restart count, the run's completion) comes first
            int restarts = history.restarts();
            try {
              rounds.complete();
              if (m.nodeRank() == 0) history.finish(m.round());
              gen.add("done", 1);
              awaitOthersDone(gen, m);
            } catch (StoreCalls.StoreUnreachableException e) {
              // this node's workers finished the run: a c10d store host that has finished too and left is no failure
              say("the rendezvous store left as the run completed (" + e.getMessage() + ")");
            }
            say("training completed after " + generations + " generation(s), " + restarts + " restart(s)");
            return new Outcome(0, "completed", restarts, generations);
          }
          case FAILED -> {
            current.stop(FAILED_GRACE); // the checkpoint commit is atomic: nothing to finish on failure
            int restarts = history.restarts();
            say("generation " + m.round() + " failed: " + end.reason() + " (restart " + restarts + " of at most " + o.maxRestarts() + ")");
            if (restarts > o.maxRestarts()) {
              return new Outcome(1, "gave up: failure " + restarts + " exceeds elastic.maxRestarts=" + o.maxRestarts()
                  + " (raise it to keep going); last failure: " + end.reason(), restarts, generations);
            }
          }
          case DIVERGED -> {
            current.stop(FAILED_GRACE);
            say("generation " + m.round() + " diverged: " + end.reason() + "; not restarting (it would diverge again)");
            return new Outcome(dev.weft.train.TrainingDivergedException.EXIT_CODE, "diverged: " + end.reason(),
                history.restarts(), generations);
          }
          case GROW, LEAVE -> { // the workers leave by themselves after the agreed step, checkpointed
            awaitExit(current, end.how() == GenerationMonitor.End.LEAVE ? leave.workersDeadline() : o.failureTimeout());
            current.stop(STOP_GRACE);
            if (PlannedLeave.requested()) return Outcome.leftRun("after generation " + m.round()
                + "'s emergency checkpoint (SIGTERM)", history.restarts(), generations);
            if (end.how() == GenerationMonitor.End.GROW) rounds.close(m.round(), CloseReason.scaleUp(end.reason()).json(), 0);
            say("generation " + m.round() + " ended at a step boundary " + (end.how() == GenerationMonitor.End.GROW
                ? "to take in a new node" : "after its emergency checkpoint: " + PlannedLeave.why(end.reason())));
          }
        }
      }
    } finally {
      if (current != null) current.stop(STOP_GRACE);
      try {
        Runtime.getRuntime().removeShutdownHook(stopper);
      } catch (IllegalStateException ignored) {
        // shutting down: the hook runs
      }
      if (lastRound < 0) log.debug("agent {} never joined a generation", nodeId);
    }
  }

  private GenerationRecord startRecord(RendezvousRound rounds, RendezvousRound.Membership m, MembershipPlan plan, long sealedAt,
                                       long launchedAt) {
    String prev = m.round() == 0 ? null : rounds.closedReason(m.round() - 1);
    CloseReason why = prev == null ? null : CloseReason.parse(prev);
    if (why == null) why = new CloseReason("start", prev, 0, 0); // the first generation, or a reason that is not JSON
    return new GenerationRecord(m.round(), m.nodes(), plan.worldSize(), plan.dp(), plan.microBatches(), why.cause(), why.reason(),
        why.failedAtMs(), why.atMs(), sealedAt, launchedAt, 0, 0, 0, 0, 0);
  }

  private List<String> workerCommand(Path specFile, Path runDir, MembershipPlan plan, String ckptDir, int every, boolean resume) {
    List<String> c = new ArrayList<>(List.of(WorkerMain.CLASS, "worker", "--spec", specFile.toAbsolutePath().toString(),
        "--run-dir", runDir.toAbsolutePath().toString(), "--timeout", String.valueOf(Math.max(30, 2 * o.failureTimeout().toSeconds())),
        "--set", "parallel.dp=" + plan.dp(), "--set", "parallel.microBatches=" + plan.microBatches(),
        "--set", "checkpoint.dir=" + ckptDir, "--set", "checkpoint.every=" + every));
    if (resume) c.addAll(List.of("--set", "checkpoint.resume=latest"));
    return c;
  }

  /** A worker's variables: this node's (the same for every rank, so a standby starts with them) and its identity. */
  private Map<String, String> env(int rank, RendezvousRound.Membership m, MembershipPlan plan, String master, int restarts) {
    Endpoint ep = Endpoint.parse(master);
    Map<String, String> env = new HashMap<>(nodeEnv());
    env.put("WEFT_RANK", String.valueOf(rank));
    env.put("WEFT_LOCAL_RANK", String.valueOf(rank - m.nodeRank() * o.procsPerNode()));
    env.put("WEFT_NODE_RANK", String.valueOf(m.nodeRank()));
    env.put("WEFT_NPROC_PER_NODE", String.valueOf(o.procsPerNode()));
    env.put("WEFT_WORLD_SIZE", String.valueOf(plan.worldSize()));
    env.put("WEFT_MASTER_ADDR", ep.host());
    env.put("WEFT_MASTER_PORT", String.valueOf(ep.port()));
    env.put(NodeAddress.ENV, nodeAddress); // the workers bind Gloo here
    env.put(ParentWatch.ENV, "1");
    env.put(ElasticWorker.ENV_BACKEND, o.backend().flag());
    env.put(ElasticWorker.ENV_STORE, o.endpoint().toString());
    env.put(ElasticWorker.ENV_RESTARTS, String.valueOf(restarts));
    env.put(ElasticWorker.ENV_PREFIX, runPrefix() + RendezvousRound.key(m.round(), ""));
    env.put(ElasticWorker.ENV_RUN_PREFIX, runPrefix());
    return env;
  }

  /** What every worker of this node gets, whatever its rank: thread counts, the OpenMP policy, the allocator, the log format. */
  private Map<String, String> nodeEnv() {
    int threads = NativeThreads.perRank(o.procsPerNode());
    Map<String, String> env = new HashMap<>(LocalLauncher.nativeEnv(threads));
    env.putAll(LogFormat.childEnv()); // the worker writes the agent's format from its first line
    if (!token.isEmpty()) env.put(RunToken.ENV, token); // given or made here: the workers' keys live under it too
    return env;
  }

  private static void awaitExit(LocalWorkers workers, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!workers.allExited() && System.nanoTime() < deadline) RendezvousRound.sleep(POLL);
  }

  /** The node holding the store waits (bounded) for the others to finish with it before its JVM ends. */
  private void awaitOthersDone(KeyValue gen, RendezvousRound.Membership m) {
    // the nodes finish the same last step, but each notices its workers' exit in its own time (seconds under load):
    // the agent hosting a c10d store takes it down as it returns, so it waits past a short failure timeout
    long deadline = System.nanoTime() + Math.max(o.failureTimeout().toNanos(), DONE_WAIT.toNanos());
    while (gen.add("done", 0) < m.nodes() && System.nanoTime() < deadline) RendezvousRound.sleep(POLL);
  }

  /** The longest an agent whose run completed waits for the other nodes to say so too (bounded: a node may be gone). */
  static final Duration DONE_WAIT = Duration.ofSeconds(30);

  /** The run's keys, under the backend's {@code elastic/} root. */
  private String runPrefix() { return o.runId() + "/"; }

  private void say(String line) {
    log.debug(line);
    synchronized (console) {
      console.println(LogFormat.json() ? JsonLine.now("INFO", ElasticAgent.class.getName(), "agent " + nodeId + ": " + line)
          : "[agent " + nodeId + "] " + line);
    }
  }
}
