package dev.weft.parallel.data;

import static org.bytedeco.pytorch.global.torch.zeros;

import dev.weft.comm.Communicator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.NoGradGuard;

/**
 * ZeRO-3's parameter lifecycle per unit (a layer): gather the full parameters just before use, start
 * fetching the next unit's meanwhile, and drop them once nobody uses them. Counts are re-entrant.
 */
final class UnitGathering {
  private final Communicator dp;
  private final CommClock clock;
  private final Map<Integer, List<BucketState>> byUnit = new HashMap<>();

  UnitGathering(Communicator dp, CommClock clock) {
    this.dp = dp;
    this.clock = clock;
  }

  void add(int unit, BucketState s) { byUnit.computeIfAbsent(unit, k -> new ArrayList<>()).add(s); }

  void gather(int unit, int next) {
    for (BucketState s : byUnit.getOrDefault(unit, List.of())) {
      if (s.gathered++ == 0) ensureFull(s);
    }
    for (BucketState s : byUnit.getOrDefault(next, List.of())) startFetch(s);
  }

  private void startFetch(BucketState s) {
    if (s.flat != null || s.fetching != null) return;
    try (NoGradGuard ng = new NoGradGuard()) {
      s.incoming = zeros(s.b.padded());
      s.fetching = dp.allGatherAsync(s.incoming, s.master);
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
  void drainFetches(List<BucketState> states) {
    for (BucketState s : states) {
      if (s.fetching == null) continue;
      clock.await(CommClock.Wait.GATHER, s.fetching);
      s.fetching = null;
      s.incoming = null;
    }
  }

  void release(int unit) {
    for (BucketState s : byUnit.getOrDefault(unit, List.of())) {
      if (s.gathered == 0 || --s.gathered > 0) continue;
      s.dropFull();
    }
  }

  void gatherAll() {
    for (Integer u : byUnit.keySet()) gather(u, -1);
  }

  void releaseAll() {
    for (Integer u : byUnit.keySet()) release(u);
  }
}
