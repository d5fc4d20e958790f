package dev.weft.elastic;

import dev.weft.comm.StoreValues;
import dev.weft.launch.LocalLauncher;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One generation's monitor loop on one node: beats for this agent, then reads the state each poll (this node's
 * workers' exits, a close by another node, heartbeats and step progress, the first step, a node waiting to join)
 * and returns how the generation ended. A failure it detects closes the round with a {@link CloseReason}.
 */
final class GenerationMonitor {
  // a worker JVM on a crowded machine may take minutes to its first beat; its own rendezvous timeout bounds a real hang
  private static final Duration STARTUP_GRACE = Duration.ofSeconds(180);

  /** How a generation ended: done, failed (restart), stopped at a step boundary to take in a node, or diverged (stop all). */
  enum End { COMPLETED, FAILED, GROW, DIVERGED, LEAVE }

  record Ended(End how, String reason) {}

  private final ElasticOptions o;
  private final LocalWorkers current;
  private final Runnable settled;
  private final Consumer<String> say;
  private final Duration poll;

  /** @param settled run each poll once this node's workers have all completed a step (standbys are refilled then) */
  GenerationMonitor(ElasticOptions o, LocalWorkers current, Runnable settled, Consumer<String> say, Duration poll) {
    this.o = o;
    this.current = current;
    this.settled = settled;
    this.say = say;
    this.poll = poll;
  }

  /** The reason when the round was closed for divergence, else null. */
  private static String diverged(String closed) {
    CloseReason why = CloseReason.parse(closed);
    return why != null && why.diverged() ? why.reason() : null;
  }

  /** How a round closed by another node ends this node's generation: growth and leaves at a step boundary. */
  private static End closedBy(String closed) {
    CloseReason why = CloseReason.parse(closed);
    return why == null ? End.FAILED : why.scaleUp() ? End.GROW : why.leave() ? End.LEAVE : End.FAILED;
  }

  /** Watches until the generation ends; says how. */
  Ended supervise(RendezvousRound.Membership m, MembershipPlan plan, KeyValue gen, RendezvousRound rounds, int every,
                  long totalSteps, GenerationRecord record, MembershipLog history, PlannedLeave leave) {
    // Other nodes' agents: the failure timeout (what partitions are detected by). This node's workers: the longer step
    // timeout, since a busy JVM's beat can stall for seconds and a dead worker is seen at once by its exit anyway.
    Watchdog nodes = new Watchdog(o.failureTimeout());
    Watchdog beats = new Watchdog(o.stepTimeout());
    Watchdog steps = new Watchdog(o.stepTimeout());
    long t0 = System.nanoTime();
    for (LocalWorkers.Worker w : current.all()) beats.watch(WorkerKeys.heartbeat(w.rank()), t0 + STARTUP_GRACE.toNanos());
    for (int n = 0; n < m.nodes(); n++) if (n != m.nodeRank()) nodes.watch(WorkerKeys.agentHeartbeat(n), t0);
    // a partition silences every process of a node and stalls ours: seen after a few beats, not the failure timeout
    NodeQuorum quorum = new NodeQuorum(NodeQuorum.quorumTimeout(o.heartbeat()), peerProcesses(m), t0);
    long nextBeat = 0;
    boolean stopProposed = false;
    boolean allStepped = false;
    GenerationRecord rec = record;
    HeldFailure held = null; // a worker of this node failed: blamed once the other agents prove alive
    while (true) {
      long now = System.nanoTime();
      if (now >= nextBeat) {
        gen.add(WorkerKeys.agentHeartbeat(m.nodeRank()), 1);
        nextBeat = now + o.heartbeat().toNanos();
      }
      if (PlannedLeave.requested()) { // 0. this node was told to leave: say so first, then its workers stop and save
        leave.announce(rounds, m, current);
        return new Ended(End.LEAVE, "this node leaves");
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
        else if (code == dev.weft.train.TrainingDivergedException.EXIT_CODE) {
          String reason = "rank " + w.rank() + " on node " + m.nodeRank() + " diverged (exit code " + code + "; see summary.json)";
          rounds.close(m.round(), CloseReason.diverged(reason).json(), 0);
          return new Ended(End.DIVERGED, reason);
        } else if (code != 0 && held == null) {
          long exitedAt = current.exitedAtMs(w);
          held = new HeldFailure("rank " + w.rank() + " on node " + m.nodeRank() + " " + LocalLauncher.describeExit(code),
              exitedAt == 0 ? System.currentTimeMillis() : exitedAt, otherBeats(gen, m),
              now + o.failureTimeout().plus(o.heartbeat()).plusSeconds(1).toNanos());
          gen.setIfAbsent(HeldFailure.exitKey(m.nodeRank()), String.valueOf(held.exitedAtMs()));
        }
      }
      if (held != null && m.nodes() == 1) return failHeld(rounds, m, history, held);
      if (allExited && held == null && !anyRejoin) return new Ended(End.COMPLETED, "");
      if (allExited && held == null) { // left at a step boundary: to take in a node, or after a planned leave's checkpoint
        String closed = rounds.closedReason(m.round());
        return closed != null && closedBy(closed) == End.LEAVE ? new Ended(End.LEAVE, closed) : new Ended(End.GROW, "");
      }
      // 2. another node declared the generation over
      String closed = rounds.closedReason(m.round());
      if (closed != null && diverged(closed) != null) return new Ended(End.DIVERGED, diverged(closed));
      if (closed != null) return new Ended(closedBy(closed), closed);
      // 3. heartbeats of this node's workers and of the other agents; step progress of this node's workers
      boolean stepped = true;
      StringBuilder localSteps = new StringBuilder();
      for (LocalWorkers.Worker w : current.all()) {
        beats.observe(WorkerKeys.heartbeat(w.rank()), gen.getOrNull(WorkerKeys.heartbeat(w.rank())), now);
        String step = gen.getOrNull(WorkerKeys.step(w.rank()));
        localSteps.append(step).append(',');
        if (step != null) {
          steps.watch(WorkerKeys.step(w.rank()), now);
          steps.observe(WorkerKeys.step(w.rank()), step, now);
        } else {
          stepped = false;
        }
      }
      allStepped |= stepped;
      if (allStepped) settled.run();
      boolean complete = rounds.completed();
      Map<Integer, String> others = otherBeats(gen, m);
      for (var e : others.entrySet()) nodes.observe(WorkerKeys.agentHeartbeat(e.getKey()), e.getValue(), now);
      quorum.observe(peerBeats(gen, others), localSteps.toString(), now);
      for (var e : quorum.lost(now).entrySet()) {
        if (complete) break;
        return fail(rounds, m, history, lostByQuorum(e.getKey(), e.getValue(), m), e.getValue(), m.nodes() - 1);
      }
      for (var e : nodes.silent(now).entrySet()) {
        if (complete) break; // a finished node stops beating
        return fail(rounds, m, history, lostNode(e.getKey(), e.getValue(), m), e.getValue(), m.nodes() - 1); // it does not come back
      }
      if (held != null && held.workerToBlame(others, otherExits(gen, m), m.nodeRank(), now)) return failHeld(rounds, m, history, held);
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
            say.accept("a node is waiting to join: this generation stops after step " + agreed + " (checkpointed) and re-rendezvous");
          }
          stopProposed = true;
        }
      }
      if (allExited) RendezvousRound.sleep(poll);
      else current.awaitAnyExit(poll);
    }
  }

  /** Every other node's agent heartbeat counter as it is in the store now (null: not written yet). */
  private static Map<Integer, String> otherBeats(KeyValue gen, RendezvousRound.Membership m) {
    Map<Integer, String> beats = new HashMap<>();
    for (int n = 0; n < m.nodes(); n++) if (n != m.nodeRank()) beats.put(n, gen.getOrNull(WorkerKeys.agentHeartbeat(n)));
    return beats;
  }

  /** Each other node's heartbeat keys: its agent's, then its workers' (ranks NODE × K ... NODE × K + K - 1). */
  private Map<Integer, java.util.List<String>> peerProcesses(RendezvousRound.Membership m) {
    Map<Integer, java.util.List<String>> keys = new HashMap<>();
    int k = o.procsPerNode();
    for (int n = 0; n < m.nodes(); n++) {
      if (n == m.nodeRank()) continue;
      java.util.List<String> mine = new java.util.ArrayList<>(java.util.List.of(WorkerKeys.agentHeartbeat(n)));
      for (int r = n * k; r < (n + 1) * k; r++) mine.add(WorkerKeys.heartbeat(r));
      keys.put(n, mine);
    }
    return keys;
  }

  /** The other nodes' workers' beat counters now, with their agents' ({@code others}, already read this poll). */
  private Map<String, String> peerBeats(KeyValue gen, Map<Integer, String> others) {
    Map<String, String> now = new HashMap<>();
    int k = o.procsPerNode();
    for (var e : others.entrySet()) {
      now.put(WorkerKeys.agentHeartbeat(e.getKey()), e.getValue());
      for (int r = e.getKey() * k; r < (e.getKey() + 1) * k; r++) now.put(WorkerKeys.heartbeat(r), gen.getOrNull(WorkerKeys.heartbeat(r)));
    }
    return now;
  }

  /** When other nodes' workers failed (epoch ms), for the nodes whose agents published it. */
  private static Map<Integer, Long> otherExits(KeyValue gen, RendezvousRound.Membership m) {
    Map<Integer, Long> exits = new HashMap<>();
    for (int n = 0; n < m.nodes(); n++) {
      String t = n == m.nodeRank() ? null : gen.getOrNull(HeldFailure.exitKey(n));
      if (t != null) exits.put(n, StoreValues.parseLong(HeldFailure.exitKey(n), t));
    }
    return exits;
  }

  private Ended failHeld(RendezvousRound rounds, RendezvousRound.Membership m, MembershipLog history, HeldFailure held) {
    double sinceExit = Math.max(0, System.currentTimeMillis() - held.exitedAtMs()) / 1000.0;
    return fail(rounds, m, history, held.reason(), sinceExit, m.nodes());
  }

  /** "node 1 (pid@host) stopped heart-beating 5.0 s ago: lost", naming the node rather than a survivor that lost its peer. */
  private static String lostNode(String key, double seconds, RendezvousRound.Membership m) {
    int n = StoreValues.parseInt(key, key.substring(key.lastIndexOf('/') + 1));
    return String.format("node %d (%s) lost: its agent sent no heartbeat for %.1f s", n, m.nodeIds().get(n), seconds);
  }

  /** The {@link #lostNode} line, plus the quorum's evidence: its workers were silent too and this node's ranks stalled. */
  private String lostByQuorum(int n, double seconds, RendezvousRound.Membership m) {
    return String.format("node %d (%s) lost: its agent sent no heartbeat for %.1f s, nor did its %d worker(s), while this node's"
        + " ranks made no step (cut off or down)", n, m.nodeIds().get(n), seconds, o.procsPerNode());
  }

  /**
   * @param silentS how long the failed party had been silent: its failure is dated back by that much
   * @param comingBack how many nodes are expected in the next round: it seals as soon as they are there
   */
  private Ended fail(RendezvousRound rounds, RendezvousRound.Membership m, MembershipLog history, String reason, double silentS,
                     int comingBack) {
    if (rounds.close(m.round(), CloseReason.failure(reason, Math.round(silentS * 1000)).json(), comingBack)) history.countRestart();
    return new Ended(End.FAILED, reason);
  }

  private static String silence(String key, double seconds, String what, String guess) {
    return String.format("rank %s %s for %.1f s (%s)", key.substring(key.lastIndexOf('/') + 1), what, seconds, guess);
  }

  private void killLocal(String key) {
    int rank = StoreValues.parseInt(key, key.substring(key.lastIndexOf('/') + 1));
    for (LocalWorkers.Worker w : current.all()) if (w.rank() == rank) current.kill(w);
  }

  private static GenerationRecord recordFirstStep(GenerationRecord rec, KeyValue gen, MembershipPlan plan, MembershipLog history) {
    long started = 0, ready = 0, first = 0, firstStep = 0;
    int warm = 0;
    for (int r = 0; r < plan.worldSize(); r++) {
      String f = gen.getOrNull(WorkerKeys.firstStep(r));
      if (f == null) return rec;
      String s = gen.getOrNull(WorkerKeys.started(r));
      String y = gen.getOrNull(WorkerKeys.ready(r));
      started = Math.max(started, s == null ? 0 : StoreValues.parseLong(WorkerKeys.started(r), s));
      ready = Math.max(ready, y == null ? 0 : StoreValues.parseLong(WorkerKeys.ready(r), y));
      if (gen.getOrNull(WorkerKeys.standby(r)) != null) warm++;
      long[] stepAt = StoreValues.parsePair(WorkerKeys.firstStep(r), f);
      firstStep = stepAt[0];
      first = Math.max(first, stepAt[1]);
    }
    GenerationRecord done = rec.withStart(started, ready, first, firstStep, warm);
    history.record(done);
    history.writeElasticJson(rec.generation());
    return done;
  }
}
