package dev.weft.parallel.data;

import dev.weft.util.Tensors;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;

/**
 * ZeRO-3's parameter lifecycle per gather group (consecutive layers, one flat bucket, see
 * {@link UnitGroups}): a layer's group is made whole just before its forward, the {@code depth}
 * groups after it (before it, in backward) are fetched meanwhile on Gloo's threads, and a group is
 * dropped as soon as forward leaves its last layer (backward drops it once its gradients are
 * packed, see {@link BucketState#launch}). The forward's final group stays whole: backward starts
 * with it. Every rank issues the same gathers in the same order, which the collectives need.
 */
final class UnitGathering {
  /** Which way the layers run: the direction prefetching looks ahead in. */
  enum Pass {
    FORWARD(1), BACKWARD(-1), NONE(0);

    final int step;

    Pass(int step) { this.step = step; }
  }

  private final CommClock clock;
  private final int depth;
  private final UnitGroups groups;
  private final List<List<BucketState>> byGroup = new ArrayList<>();

  UnitGathering(CommClock clock, UnitGroups groups, int depth) {
    this.clock = clock;
    this.groups = groups;
    this.depth = depth;
    for (int g = 0; g < groups.count(); g++) byGroup.add(new ArrayList<>());
  }

  void add(int group, BucketState s) { byGroup.get(group).add(s); }

  /** The buckets of {@code unit}'s group. */
  List<BucketState> bucketsOf(int unit) { return byGroup.get(groups.of(unit)); }

  /** Makes {@code unit}'s group whole (re-entrant) and starts fetching the next {@code depth} groups in {@code pass}'s direction. */
  void gather(int unit, Pass pass) {
    int g = groups.of(unit);
    for (BucketState s : byGroup.get(g)) {
      s.gathered++;
      ensureFull(s);
    }
    for (int k = 1; k <= depth && pass != Pass.NONE; k++) prefetch(g + k * pass.step);
  }

  /** Starts fetching the first groups forward will need (after a step, so that they arrive while the next one begins). */
  void prefetchStart() {
    for (int g = 0; g < depth; g++) prefetch(g);
  }

  private void prefetch(int group) {
    if (group < 0 || group >= byGroup.size()) return;
    for (BucketState s : byGroup.get(group)) startFetch(s);
  }

  private void startFetch(BucketState s) {
    if (s.flat != null || s.fetching != null) return;
    try (NoGradGuard ng = new NoGradGuard()) {
      s.incoming = Tensors.zerosLike(s.master, s.b.padded());
      s.incoming.retainReference(); // a prefetch outlives the step's PointerScope; BucketState releases it
      s.fetching = s.group().allGatherAsync(s.incoming, s.master); // dp, HSDP's shard group, or an expert bucket's edp
      clock.gatherIssued(4 * s.b.padded());
    }
  }

  /** Binds the bucket's parameters to its full data, waiting for a fetch already in flight. */
  private void ensureFull(BucketState s) {
    if (s.flat != null) return;
    startFetch(s);
    clock.await(CommClock.Wait.GATHER, s.fetching);
    s.flat = s.incoming;
    s.incoming = null;
    s.fetching = null;
    s.bindParams(s.flat);
  }

  /** Fetches nobody consumed (the step ended first) are waited for and dropped. */
  void drainFetches() {
    for (List<BucketState> group : byGroup) {
      for (BucketState s : group) {
        if (s.fetching == null) continue;
        clock.await(CommClock.Wait.GATHER, s.fetching);
        s.fetching = null;
        s.incoming.releaseReference();
        s.incoming = null;
      }
    }
  }

  /** {@code unit}'s forward is done: its group is dropped if that was the group's last layer (and not the final group). */
  void release(int unit) {
    int g = groups.of(unit);
    for (BucketState s : byGroup.get(g)) if (s.gathered > 0) s.gathered--;
    if (unit != groups.lastUnit()[g] || g == byGroup.size() - 1) return;
    for (BucketState s : byGroup.get(g)) if (s.gathered == 0) s.dropFull();
  }

  void gatherAll() {
    for (int g = 0; g < byGroup.size(); g++) gather(groups.lastUnit()[g], Pass.NONE);
  }

  /** Drops every whole group and every fetch in flight (after a step their data is stale). */
  void releaseAll() {
    drainFetches();
    for (List<BucketState> group : byGroup) {
      for (BucketState s : group) {
        s.gathered = 0;
        s.dropFull();
      }
    }
  }
}
