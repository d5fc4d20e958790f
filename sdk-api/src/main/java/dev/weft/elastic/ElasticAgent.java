package dev.weft.elastic;

import dev.weft.spec.Endpoint;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.comm.CommException;
import dev.weft.comm.NodeAddress;
import dev.weft.comm.StoreCalls;
import dev.weft.comm.StoreValues;
import dev.weft.launch.FreePort;
import dev.weft.launch.LocalLauncher;
import dev.weft.launch.ParentWatch;
import dev.weft.log.JsonLine;
import dev.weft.log.LogFormat;
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
  private static final Duration FAILED_GRACE = Duration.ofMillis(500);
  // a worker JVM on a crowded machine may take minutes to its first beat; its own rendezvous timeout bounds a real hang
  private static final Duration STARTUP_GRACE = Duration.ofSeconds(180);

  /** The end of an agent's run: exit code 0 when training completed. */
  public record Outcome(int exitCode, String message, int restarts, int generations) {
    public boolean ok() { return exitCode == 0; }
  }

  private enum End { COMPLETED, FAILED, GROW }

  private record Ended(End how, String reason) {}

  private final ElasticOptions o;
  private final PrintStream console;
  private final String nodeId;
  private volatile LocalWorkers current;
  private String nodeAddress;

  public ElasticAgent(ElasticOptions options, PrintStream console) {
    this.o = options;
    this.console = console;
    this.nodeId = ManagementFactory.getRuntimeMXBean().getName(); // pid@host
  }

  /** This node's agent with the spec's elastic settings (rendezvous included), one worker per node (the DSL's launch). */
  public static LocalLauncher.Outcome launchLocal(TrainingSpec spec, Path runDir, PrintStream console) {
    var e = spec.elastic();
    RendezvousBackend backend = ElasticOptions.backend(spec, null, "elastic.rdzvBackend");
    ElasticOptions o = ElasticOptions.of(spec, new int[] {e.minNodes(), e.maxNodes()}, 1, backend,
        ElasticOptions.endpoint(spec, backend, null), spec.name(), ElasticOptions.DEFAULT_JOIN_WINDOW);
    Outcome out = new ElasticAgent(o, console).run(spec, runDir);
    return new LocalLauncher.Outcome(out.exitCode(), -1, out.message());
  }

  /** Runs until the training completes, restarts run out, or rendezvous fails. */
  public Outcome run(TrainingSpec spec, Path runDir) {
    MembershipPlan.Shape shape = MembershipPlan.Shape.of(spec, o.procsPerNode());
    MembershipPlan.requireAllWorkable(o.minNodes(), o.maxNodes(), shape);
    Path ownCkptDir = (spec.checkpoint().dir().isBlank() ? runDir.resolve("checkpoints") : Path.of(spec.checkpoint().dir()))
        .toAbsolutePath();
    int every = spec.checkpoint().every() > 0 ? spec.checkpoint().every() : 1;
    Path specFile = runDir.resolve("spec.yaml");
    SpecIO.write(spec, specFile);

    KeyValue root;
    try {
      // twice the failure timeout: a busy store is not mistaken for a partition; a cut-off node still leaves within ~15 s
      root = o.backend().open(o.endpoint(), true, o.failureTimeout().multipliedBy(2), o.storeConnectTimeout(), this::say);
    } catch (CommException e) {
      return new Outcome(1, e.getMessage(), 0, 0);
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

  private Outcome generations(TrainingSpec spec, Path runDir, KeyValue root, MembershipPlan.Shape shape, Path ownCkptDir, int every,
                              Path specFile) {
    KeyValue kv = root.under(runPrefix());
    if (o.backend() == RendezvousBackend.ETCD && kv.getOrNull("complete") != null) {
      // etcd outlives runs (a TCPStore dies with its run): this id names a finished run, not one to join late
      return new Outcome(2, "--rdzv-id '" + o.runId() + "' names a run that already completed on etcd at " + o.endpoint()
          + "; use a new --rdzv-id, or delete its keys: etcdctl --endpoints " + o.endpoint() + " del --prefix weft/"
          + dev.weft.comm.RunToken.keyPrefix(dev.weft.comm.RunToken.fromEnv()) + "elastic/" + runPrefix(), 0, 0);
    }
    // every generation must resume from the same checkpoints whichever node hosts rank 0: the first agent's directory wins
    Path ckptDir = Path.of(kv.setIfAbsent("checkpoint-dir", ownCkptDir.toString()));
    if (!ckptDir.equals(ownCkptDir)) {
      say("checkpoints of this run go to " + ckptDir + " (agreed with the other nodes; across hosts it must be shared storage)");
    }
    RendezvousRound rounds = new RendezvousRound(kv, new RendezvousRound.Settings(o.maxNodes(), o.joinWindow(),
        o.rendezvousTimeout(), POLL, n -> MembershipPlan.largestWorkable(n, o.minNodes(), o.maxNodes(), shape)), System::nanoTime);
    MembershipLog history = new MembershipLog(kv, runDir);
    Thread stopper = new Thread(() -> { if (current != null) current.stop(Duration.ZERO); }, "weft-agent-stop-workers");
    Runtime.getRuntime().addShutdownHook(stopper);
    int generations = 0;
    int lastRound = -1;
    try {
      while (true) {
        say("joining rendezvous " + o.runId() + " at " + o.endpoint() + " as " + nodeId);
        RendezvousRound.Membership m = rounds.join(nodeId);
        if (m == null) return new Outcome(0, "the run completed before this node joined", history.restarts(), generations);
        long sealedAt = System.currentTimeMillis();
        generations++;
        lastRound = m.round();
        MembershipPlan plan = MembershipPlan.forNodes(m.nodes(), shape);
        KeyValue gen = kv.under(RendezvousRound.key(m.round(), ""));
        String master = masterAddress(gen, m);
        boolean resume = m.round() > 0 && CheckpointResolver.latest(ckptDir).isPresent();
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
        current = LocalWorkers.start(command, ranks, rank -> env(rank, m, plan, master, history.restarts()), console);
        Ended end = supervise(m, plan, gen, rounds, every, spec.train().steps(), record, history);
        switch (end.how()) {
          case COMPLETED -> {
            gen.add("done", 1);
            rounds.complete();
            if (m.nodeRank() == 0) history.finish(m.round());
            awaitOthersDone(gen, m);
            say("training completed after " + generations + " generation(s), " + history.restarts() + " restart(s)");
            return new Outcome(0, "completed", history.restarts(), generations);
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
          case GROW -> {
            awaitExit(current, o.failureTimeout()); // they leave by themselves after the agreed, checkpointed step
            current.stop(STOP_GRACE);
            rounds.close(m.round(), closeReason("scale-up", end.reason(), 0), 0); // newcomers: wait the join window
            say("generation " + m.round() + " ended at a step boundary to take in a new node");
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

  private Ended supervise(RendezvousRound.Membership m, MembershipPlan plan, KeyValue gen, RendezvousRound rounds, int every,
                          long totalSteps, GenerationRecord record, MembershipLog history) {
    // Other nodes' agents: the failure timeout (what partitions are detected by). This node's workers: the longer step
    // timeout, since a busy JVM's beat can stall for seconds and a dead worker is seen at once by its exit anyway.
    Watchdog nodes = new Watchdog(o.failureTimeout());
    Watchdog beats = new Watchdog(o.stepTimeout());
    Watchdog steps = new Watchdog(o.stepTimeout());
    long t0 = System.nanoTime();
    for (LocalWorkers.Worker w : current.all()) beats.watch(WorkerKeys.heartbeat(w.rank()), t0 + STARTUP_GRACE.toNanos());
    for (int n = 0; n < m.nodes(); n++) if (n != m.nodeRank()) nodes.watch(WorkerKeys.agentHeartbeat(n), t0);
    long nextBeat = 0;
    boolean stopProposed = false;
    GenerationRecord rec = record;
    while (true) {
      long now = System.nanoTime();
      if (now >= nextBeat) {
        gen.add(WorkerKeys.agentHeartbeat(m.nodeRank()), 1);
        nextBeat = now + o.heartbeat().toNanos();
      }
      // 1. exits of this node's workers
      boolean allExited = true;
      boolean anyRejoin = false;
      for (LocalWorkers.Worker w : current.all()) {
        if (w.process().isAlive()) {
          allExited = false;
          continue;
        }
        int code = w.process().exitValue();
        if (code == ElasticWorker.EXIT_REJOIN) anyRejoin = true;
        else if (code != 0) {
          return fail(rounds, m, history, "rank " + w.rank() + " on node " + m.nodeRank() + " " + LocalLauncher.describeExit(code), 0,
              m.nodes());
        }
      }
      if (allExited) return new Ended(anyRejoin ? End.GROW : End.COMPLETED, "");
      // 2. another node declared the generation over
      String closed = rounds.closedReason(m.round());
      if (closed != null) return new Ended(closed.contains("\"scale-up\"") ? End.GROW : End.FAILED, closed);
      // 3. heartbeats of this node's workers and of the other agents; step progress of this node's workers
      for (LocalWorkers.Worker w : current.all()) {
        beats.observe(WorkerKeys.heartbeat(w.rank()), gen.getOrNull(WorkerKeys.heartbeat(w.rank())), now);
        String step = gen.getOrNull(WorkerKeys.step(w.rank()));
        if (step != null) {
          steps.watch(WorkerKeys.step(w.rank()), now);
          steps.observe(WorkerKeys.step(w.rank()), step, now);
        }
      }
      boolean complete = rounds.completed();
      for (int n = 0; n < m.nodes(); n++) {
        if (n != m.nodeRank()) nodes.observe(WorkerKeys.agentHeartbeat(n), gen.getOrNull(WorkerKeys.agentHeartbeat(n)), now);
      }
      for (var e : nodes.silent(now).entrySet()) {
        if (complete) break; // a finished node stops beating
        return fail(rounds, m, history, silence(e.getKey(), e.getValue(), "sent no heartbeat", "node lost"), e.getValue(),
            m.nodes() - 1); // a lost node does not come back
      }
      for (var e : beats.silent(now).entrySet()) {
        killLocal(e.getKey());
        return fail(rounds, m, history, silence(e.getKey(), e.getValue(), "sent no heartbeat", "stopped or hung"), e.getValue(),
            m.nodes());
      }
      for (var e : steps.silent(now).entrySet()) {
        killLocal(e.getKey());
        return fail(rounds, m, history, silence(e.getKey(), e.getValue(), "completed no step", "hung in a collective?"), e.getValue(),
            m.nodes());
      }
      // 4. the first step of this generation (node 0 records the start-up timeline)
      if (rec != null && rec.firstStepAtMs() == 0) rec = recordFirstStep(rec, gen, plan, history);
      // 5. a node waiting in the next round: grow at a step boundary after a checkpoint
      if (!stopProposed && m.nodes() < o.maxNodes() && rounds.waiting(m.round() + 1) > 0) {
        long maxStep = 0;
        for (int r = 0; r < plan.worldSize(); r++) {
          String s = gen.getOrNull(WorkerKeys.step(r));
          if (s != null) maxStep = Math.max(maxStep, StoreValues.parseLong(WorkerKeys.step(r), s));
        }
        if (maxStep > 0) {
          long stopAt = ((maxStep + 3 + every - 1) / every) * every;
          if (stopAt < totalSteps) {
            String agreed = gen.setIfAbsent(WorkerKeys.STOP_AT, String.valueOf(stopAt));
            say("a node is waiting to join: this generation stops after step " + agreed + " (checkpointed) and re-rendezvous");
          }
          stopProposed = true;
        }
      }
      RendezvousRound.sleep(POLL);
    }
  }

  /**
   * @param silentS how long the failed party had been silent: its failure is dated back by that much
   * @param comingBack how many nodes are expected in the next round: it seals as soon as they are there
   */
  private Ended fail(RendezvousRound rounds, RendezvousRound.Membership m, MembershipLog history, String reason, double silentS,
                     int comingBack) {
    if (rounds.close(m.round(), closeReason("failure", reason, Math.round(silentS * 1000)), comingBack)) history.countRestart();
    return new Ended(End.FAILED, reason);
  }

  private static String silence(String key, double seconds, String what, String guess) {
    String who = key.startsWith("hb/node/") ? "node " + key.substring("hb/node/".length()) + " (its agent)"
        : "rank " + key.substring(key.lastIndexOf('/') + 1);
    return String.format("%s %s for %.1f s (%s)", who, what, seconds, guess);
  }

  private void killLocal(String key) {
    int rank = StoreValues.parseInt(key, key.substring(key.lastIndexOf('/') + 1));
    for (LocalWorkers.Worker w : current.all()) if (w.rank() == rank) current.kill(w);
  }

  private static String closeReason(String cause, String reason, long silentMs) {
    Map<String, Object> m = new HashMap<>();
    long now = System.currentTimeMillis();
    m.put("cause", cause);
    m.put("reason", reason);
    m.put("at_ms", now);
    m.put("failed_at_ms", now - silentMs); // the last sign of life seen: detection time = at_ms - failed_at_ms
    return dev.weft.metrics.MetricsJson.json(m);
  }

  private GenerationRecord startRecord(RendezvousRound rounds, RendezvousRound.Membership m, MembershipPlan plan, long sealedAt,
                                       long launchedAt) {
    String cause = "start";
    String reason = null;
    long closedAt = 0;
    long failedAt = 0;
    String prev = m.round() == 0 ? null : rounds.closedReason(m.round() - 1);
    if (prev != null) {
      try {
        var n = dev.weft.metrics.MetricsJson.MAPPER.readTree(prev);
        cause = n.path("cause").asText("failure");
        reason = n.path("reason").asText(null);
        closedAt = n.path("at_ms").asLong(0);
        failedAt = n.path("failed_at_ms").asLong(closedAt);
      } catch (java.io.IOException e) {
        reason = prev;
      }
    }
    return new GenerationRecord(m.round(), m.nodes(), plan.worldSize(), plan.dp(), plan.microBatches(), cause, reason, failedAt,
        closedAt, sealedAt, launchedAt, 0, 0, 0, 0);
  }

  private static GenerationRecord recordFirstStep(GenerationRecord rec, KeyValue gen, MembershipPlan plan, MembershipLog history) {
    long started = 0, ready = 0, first = 0, firstStep = 0;
    for (int r = 0; r < plan.worldSize(); r++) {
      String f = gen.getOrNull(WorkerKeys.firstStep(r));
      if (f == null) return rec;
      String s = gen.getOrNull(WorkerKeys.started(r));
      String y = gen.getOrNull(WorkerKeys.ready(r));
      started = Math.max(started, s == null ? 0 : StoreValues.parseLong(WorkerKeys.started(r), s));
      ready = Math.max(ready, y == null ? 0 : StoreValues.parseLong(WorkerKeys.ready(r), y));
      long[] stepAt = StoreValues.parsePair(WorkerKeys.firstStep(r), f);
      firstStep = stepAt[0];
      first = Math.max(first, stepAt[1]);
    }
    GenerationRecord done = rec.withStart(started, ready, first, firstStep);
    history.record(done);
    history.writeElasticJson(rec.generation());
    return done;
  }

  private String masterAddress(KeyValue gen, RendezvousRound.Membership m) {
    if (m.nodeRank() == 0) {
      gen.setIfAbsent("master", nodeAddress + ":" + FreePort.find()); // where this node's rank 0 listens
    }
    long deadline = System.nanoTime() + o.rendezvousTimeout().toNanos();
    String master;
    while ((master = gen.getOrNull("master")) == null) {
      if (System.nanoTime() > deadline) throw new CommException("node 0 of generation " + m.round() + " published no master address");
      RendezvousRound.sleep(POLL);
    }
    return master;
  }

  private List<String> workerCommand(Path specFile, Path runDir, MembershipPlan plan, Path ckptDir, int every, boolean resume) {
    List<String> c = new ArrayList<>(List.of("dev.weft.cli.WeftMain", "worker", "--spec", specFile.toAbsolutePath().toString(),
        "--run-dir", runDir.toAbsolutePath().toString(), "--timeout", String.valueOf(Math.max(30, 2 * o.failureTimeout().toSeconds())),
        "--set", "parallel.dp=" + plan.dp(), "--set", "parallel.microBatches=" + plan.microBatches(),
        "--set", "checkpoint.dir=" + ckptDir, "--set", "checkpoint.every=" + every));
    if (resume) c.addAll(List.of("--set", "checkpoint.resume=latest"));
    return c;
  }

  private Map<String, String> env(int rank, RendezvousRound.Membership m, MembershipPlan plan, String master, int restarts) {
    Endpoint ep = Endpoint.parse(master);
    int threads = NativeThreads.perRank(o.procsPerNode());
    Map<String, String> env = new HashMap<>();
    env.put("WEFT_RANK", String.valueOf(rank));
    env.put("WEFT_LOCAL_RANK", String.valueOf(rank - m.nodeRank() * o.procsPerNode()));
    env.put("WEFT_NODE_RANK", String.valueOf(m.nodeRank()));
    env.put("WEFT_NPROC_PER_NODE", String.valueOf(o.procsPerNode()));
    env.put("WEFT_WORLD_SIZE", String.valueOf(plan.worldSize()));
    env.put("WEFT_MASTER_ADDR", ep.host());
    env.put("WEFT_MASTER_PORT", String.valueOf(ep.port()));
    env.put("WEFT_THREADS", String.valueOf(threads));
    env.put(NodeAddress.ENV, nodeAddress); // the workers bind Gloo here
    env.put(ParentWatch.ENV, "1");
    env.put("OMP_WAIT_POLICY", "PASSIVE");
    env.put("OMP_NUM_THREADS", String.valueOf(threads));
    env.put("OPENBLAS_NUM_THREADS", String.valueOf(threads));
    env.put(ElasticWorker.ENV_BACKEND, o.backend().flag());
    env.put(ElasticWorker.ENV_STORE, o.endpoint().toString());
    env.put(ElasticWorker.ENV_RESTARTS, String.valueOf(restarts));
    env.put(ElasticWorker.ENV_PREFIX, runPrefix() + RendezvousRound.key(m.round(), ""));
    env.put(ElasticWorker.ENV_RUN_PREFIX, runPrefix());
    env.putAll(LogFormat.childEnv()); // the worker writes the agent's format from its first line
    return env;
  }

  private static void awaitExit(LocalWorkers workers, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!workers.allExited() && System.nanoTime() < deadline) RendezvousRound.sleep(POLL);
  }

  /** The node holding the store waits (bounded) for the others to finish with it before its JVM ends. */
  private void awaitOthersDone(KeyValue gen, RendezvousRound.Membership m) {
    long deadline = System.nanoTime() + o.failureTimeout().toNanos();
    while (gen.add("done", 0) < m.nodes() && System.nanoTime() < deadline) RendezvousRound.sleep(POLL);
  }

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
