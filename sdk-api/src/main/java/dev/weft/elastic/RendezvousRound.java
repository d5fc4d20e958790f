package dev.weft.elastic;

import dev.weft.comm.StoreValues;
import dev.weft.error.WeftException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;

/**
 * One rendezvous round on the store: nodes join round R by taking the next index of its join
 * counter; the round is sealed with the first N joiners once it is full (max nodes) or once no node
 * has joined for a join window after the previous generation closed. Members get node ranks 0..N-1
 * in join order; a node that joined too late for the seal moves to round R+1, which the running
 * generation sees as a request to grow. Keys (under the run's prefix):
 * <pre>
 *   open               counter: the round new nodes join
 *   r/R/joined         counter: nodes that joined round R
 *   r/R/node/I         the id of the I-th joiner
 *   r/R/sealed         N, written once (set-if-absent): the generation's size
 *   r/R/closed         why generation R ended (failure or growth); round R+1 may seal after it
 *   r/R/coming_back    members of R expected in round R+1 after a failure: it seals once they joined
 *   complete           the run finished; nodes still waiting leave
 * </pre>
 */
public final class RendezvousRound {
  /** This node's place in a sealed generation. */
  public record Membership(int round, int nodeRank, List<String> nodeIds) {
    public int nodes() { return nodeIds.size(); }
  }

  /**
   * @param sealable given the number of nodes that joined, how many the generation can take (0: not enough yet)
   */
  public record Settings(int maxNodes, Duration joinWindow, Duration timeout, Duration poll, IntUnaryOperator sealable) {}

  private final KeyValue kv;
  private final Settings settings;
  private final LongSupplier nanoTime;

  public RendezvousRound(KeyValue kv, Settings settings, LongSupplier nanoTime) {
    this.kv = kv;
    this.settings = settings;
    this.nanoTime = nanoTime;
  }

  public static String key(int round, String name) { return "r/" + round + "/" + name; }

  /** Joins the open round (or a later one when too late) and waits for a seal; null when the run completed first. */
  public Membership join(String nodeId) {
    long deadline = nanoTime.getAsLong() + settings.timeout().toNanos();
    int round = (int) kv.add("open", 0);
    while (true) {
      int index = (int) kv.add(key(round, "joined"), 1) - 1;
      kv.set(key(round, "node/" + index), nodeId);
      Integer sealed = awaitSeal(round, deadline);
      if (sealed == null) return null;
      advanceOpen(round, nodeId);
      if (index < sealed) return new Membership(round, index, nodeIds(round, sealed));
      round++; // late for this round: the next one forms when this generation ends or grows
    }
  }

  /** How many nodes wait in {@code round} (joiners of the next round, seen from a running generation). */
  public long waiting(int round) { return kv.add(key(round, "joined"), 0); }

  /**
   * Ends generation {@code round}; the first reason recorded wins. Returns true for the caller that closed it.
   * {@code comingBack} (0: unknown) is how many nodes the closer expects in the next round (the members
   * minus those it declared lost): once they have joined, the next round seals without waiting the join window.
   */
  public boolean close(int round, String reason, int comingBack) {
    boolean closer = kv.setIfAbsent(key(round, "closed"), reason).equals(reason);
    if (closer && comingBack > 0) kv.set(key(round, "coming_back"), String.valueOf(comingBack));
    return closer;
  }

  public String closedReason(int round) { return kv.getOrNull(key(round, "closed")); }

  public void complete() { kv.set("complete", "1"); }

  public boolean completed() { return kv.getOrNull("complete") != null; }

  private Integer awaitSeal(int round, long deadline) {
    long lastJoined = -1;
    long lastChange = nanoTime.getAsLong();
    long closedSeen = -1;
    while (true) {
      String sealed = kv.getOrNull(key(round, "sealed"));
      if (sealed != null) return StoreValues.parseInt(key(round, "sealed"), sealed);
      if (completed()) return null;
      long now = nanoTime.getAsLong();
      long joined = kv.add(key(round, "joined"), 0);
      if (joined != lastJoined) {
        lastJoined = joined;
        lastChange = now;
      }
      if (closedSeen < 0 && previousClosed(round)) closedSeen = now;
      if (closedSeen >= 0) {
        int n = settings.sealable().applyAsInt((int) Math.min(joined, Integer.MAX_VALUE));
        boolean full = joined >= settings.maxNodes();
        boolean quiet = now - Math.max(lastChange, closedSeen) >= settings.joinWindow().toNanos();
        String back = round == 0 ? null : kv.getOrNull(key(round - 1, "coming_back"));
        boolean allBack = back != null && joined >= StoreValues.parseInt(key(round - 1, "coming_back"), back);
        if (n > 0 && (full || quiet || allBack)) {
          kv.setIfAbsent(key(round, "sealed"), String.valueOf(n));
          continue;
        }
      }
      if (now > deadline) {
        throw new WeftException("no generation formed within " + settings.timeout().toSeconds() + " s: " + joined
            + " node(s) joined rendezvous round " + round + (closedSeen < 0 ? " while the previous generation still runs" : "")
            + "; start more nodes, lower the minimum of --nnodes, or raise the rendezvous timeout");
      }
      sleep(settings.poll());
    }
  }

  private boolean previousClosed(int round) {
    if (round == 0) return true;
    if (kv.getOrNull(key(round - 1, "sealed")) == null) return true; // no generation ran in the previous round
    return kv.getOrNull(key(round - 1, "closed")) != null;
  }

  private void advanceOpen(int round, String nodeId) {
    if (kv.setIfAbsent(key(round, "advanced"), nodeId).equals(nodeId)) kv.add("open", 1);
  }

  private List<String> nodeIds(int round, int n) {
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String id = kv.getOrNull(key(round, "node/" + i));
      for (int tries = 0; id == null && tries < 500; tries++) { // the joiner writes its id right after its index
        sleep(Duration.ofMillis(10));
        id = kv.getOrNull(key(round, "node/" + i));
      }
      if (id == null) throw new WeftException("node " + i + " of rendezvous round " + round + " never wrote its id");
      ids.add(id);
    }
    return List.copyOf(ids);
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WeftException("interrupted while waiting for the rendezvous");
    }
  }
}
