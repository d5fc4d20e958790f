package dev.weft.elastic;

import dev.weft.comm.Rendezvous;
import dev.weft.comm.RunToken;
import dev.weft.comm.StoreCalls;
import dev.weft.comm.WorkerIdentity;
import dev.weft.spec.ElasticSpec;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failure detection for a fixed (non-elastic) run across hosts, with the elastic runs' settings: every rank beats
 * {@code hb/R} into the run's store (rank 0's) every {@code elastic.heartbeatSeconds} on a connection of its own,
 * each call within twice {@code elastic.failureTimeoutSeconds}. Rank 0 declares a rank whose beat stood still for
 * the failure timeout lost, publishes why ({@code lost}) and stops; the other ranks stop when they read it, or when
 * their own beat misses its deadline (they are cut off from rank 0's host). A collective on a cut link never
 * returns by itself: this ends both sides of a partition, each with one line, within the failure timeout plus
 * about 10 s. When rank 0's process ends (its store closes) the watch just stops: the collectives fail by themselves.
 */
public final class FixedRunWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FixedRunWatch.class);
  private static final String LOST = "lost";
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(120);

  private final WorkerIdentity id;
  private final Duration beat;
  private final Duration failureTimeout;
  private final Duration startGrace;
  private final Thread thread;
  private volatile KeyValue kv;
  private volatile boolean running = true;

  private FixedRunWatch(WorkerIdentity id, Map<String, String> env, ElasticSpec spec) {
    this.id = id;
    this.beat = ElasticOptions.heartbeat(spec);
    this.failureTimeout = Duration.ofSeconds(spec.failureTimeoutSeconds());
    this.startGrace = ElasticOptions.stepTimeout(failureTimeout); // a rank may build and load its model before its first beat
    this.thread = new Thread(() -> run(env), "weft-fixed-run-watch");
    thread.setDaemon(true);
  }

  /** A running watch when {@code id} is a rank of a run across several hosts; null otherwise (one host needs none). */
  public static FixedRunWatch startIfMultiHost(WorkerIdentity id, Map<String, String> env, ElasticSpec spec) {
    if (id.worldSize() <= id.nprocPerNode() || env.get(ElasticWorker.ENV_STORE) != null) return null; // elastic: the agents watch
    FixedRunWatch w = new FixedRunWatch(id, env, spec);
    w.thread.start();
    return w;
  }

  /** This rank completed: rank 0 stops expecting its beats. */
  public void finished() {
    KeyValue k = kv;
    try {
      if (k != null) k.set(done(id.rank()), "1");
    } catch (RuntimeException e) {
      log.debug("rank {} could not say it is done: {}", id.rank(), e.getMessage());
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }

  private static String beatKey(int rank) { return "hb/" + rank; }

  private static String done(int rank) { return "done/" + rank; }

  private void run(Map<String, String> env) {
    try {
      String store = id.masterAddr() + ":" + id.masterPort();
      Rendezvous r = Rendezvous.connect(id.masterAddr(), id.masterPort(), id.rank(), false, CONNECT_TIMEOUT, id.nodeAddr(),
          RunToken.fromEnv(env));
      kv = new StoreKeyValue(r.prefixed("watch/"), new StoreCalls("the store of rank 0 at " + store,
          failureTimeout.multipliedBy(2), "the host of rank 0 (" + store + ") is gone"));
    } catch (RuntimeException e) {
      log.debug("rank {}: no failure watch ({})", id.rank(), e.getMessage());
      return;
    }
    Watchdog peers = new Watchdog(failureTimeout);
    long t0 = System.nanoTime();
    if (id.rank() == 0) for (int r = 1; r < id.worldSize(); r++) peers.watch(beatKey(r), t0 + startGrace.toNanos());
    Set<Integer> finished = new HashSet<>();
    while (running) {
      try {
        kv.add(beatKey(id.rank()), 1);
        String lost = id.rank() == 0 ? lostRank(peers, finished) : kv.getOrNull(LOST);
        if (lost != null && running) ElasticWorker.cutOff(lost);
      } catch (StoreCalls.StoreUnreachableException e) {
        if (e.connectionLost() || !running) return; // rank 0's process ended: the collectives say so by themselves
        ElasticWorker.cutOff(e.getMessage());
      } catch (RuntimeException e) {
        log.debug("rank {}: heartbeat not written: {}", id.rank(), e.getMessage());
      }
      try {
        Thread.sleep(beat.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Rank 0: the reason when a rank that has not finished stopped beating (also published for the others), else null. */
  private String lostRank(Watchdog peers, Set<Integer> finished) {
    long now = System.nanoTime();
    for (int r = 1; r < id.worldSize(); r++) if (!finished.contains(r)) peers.observe(beatKey(r), kv.getOrNull(beatKey(r)), now);
    for (var e : peers.silent(now).entrySet()) {
      int r = Integer.parseInt(e.getKey().substring("hb/".length()));
      if (finished.contains(r) || kv.getOrNull(done(r)) != null) {
        finished.add(r);
        continue;
      }
      int host = r / id.nprocPerNode();
      String reason = String.format("rank %d on host %d sent no heartbeat for %.1f s: host %d is lost or cut off from host 0"
          + " (elastic.failureTimeoutSeconds=%d)", r, host, e.getValue(), host, failureTimeout.toSeconds());
      kv.set(LOST, reason);
      return reason;
    }
    return null;
  }
}
