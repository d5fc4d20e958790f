package dev.weft.parallel.pipeline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compute orders of the zero-bubble schedules (Qi et al., "Zero Bubble Pipeline Parallelism"), whose
 * backward is split into B (input gradient) and W (weight gradient). Pure functions.
 */
final class ZeroBubble {
  private ZeroBubble() {}

  /**
   * ZB-H1: 1F1B's warm-up and F/B pairs, with stage s holding back its last s W's, run after the final B.
   * Stage s then never keeps more than {@code stages} micro-batches' graphs (p−s forwarded, s awaiting
   * W), 1F1B's peak, and with T_F = T_B = T_W the bubble drops from (p−1)(T_F+T_B+T_W) to (p−1)(T_F+T_B−T_W).
   */
  static List<Action> h1(int stage, int stages, int microBatches) {
    int warm = Math.min(stages - stage - 1, microBatches);
    int held = stage;
    List<Action> c = new ArrayList<>();
    for (int mb = 0; mb < warm; mb++) c.add(Action.forward(mb, 0));
    int nextW = 0;
    for (int b = 0; b < microBatches; b++) {
      if (warm + b < microBatches) c.add(Action.forward(warm + b, 0));
      c.add(Action.backwardInput(b, 0));
      for (; nextW < b + 1 - held; nextW++) c.add(Action.backwardWeight(nextW, 0));
    }
    for (; nextW < microBatches; nextW++) c.add(Action.backwardWeight(nextW, 0));
    return c;
  }

  /**
   * ZBV: two chunks per stage in a V ({@link ChunkLayout#V}), ordered by running the pipeline in unit time
   * (T_F = T_B = T_W per chunk) and letting each free stage take, in this order of preference, a B whose
   * gradient has arrived, a forward whose input has arrived while fewer than 2p micro-batch chunks are held
   * (forwarded, weight gradient not yet computed: 1F1B's peak, since a chunk is half a stage), else its
   * oldest pending W. The deeper chunk goes first. Returns the compute order of every stage.
   */
  static List<List<Action>> v(int stages, int microBatches) {
    int limit = 2 * stages, vsCount = 2 * stages;
    Map<Long, Integer> doneAt = new HashMap<>(); // (kind, mb, vs) -> time it finished
    List<List<Action>> orders = new ArrayList<>();
    int[][] nextF = new int[stages][2], nextB = new int[stages][2];
    int[] held = new int[stages];
    List<ArrayDeque<Action>> pendingW = new ArrayList<>();
    for (int s = 0; s < stages; s++) {
      orders.add(new ArrayList<>());
      pendingW.add(new ArrayDeque<>());
    }
    int total = 6 * microBatches * stages, placed = 0;
    for (int t = 0; placed < total; t++) {
      if (t > 4 * total) throw new ScheduleException("zbv found no order for " + stages + " stages and " + microBatches + " micro-batches");
      Map<Long, Integer> finished = new HashMap<>();
      for (int s = 0; s < stages; s++) {
        Action a = pickV(s, stages, microBatches, vsCount, limit, t, doneAt, nextF[s], nextB[s], held[s], pendingW.get(s));
        if (a == null) continue;
        orders.get(s).add(a);
        placed++;
        int vs = ChunkLayout.V.virtualStage(s, a.chunk(), stages);
        finished.put(key(a.kind(), a.microBatch(), vs), t + 1);
        switch (a.kind()) {
          case FORWARD -> { nextF[s][a.chunk()]++; held[s]++; }
          case BACKWARD_INPUT -> { nextB[s][a.chunk()]++; pendingW.get(s).add(Action.backwardWeight(a.microBatch(), a.chunk())); }
          default -> { pendingW.get(s).poll(); held[s]--; }
        }
      }
      doneAt.putAll(finished);
    }
    return orders;
  }

  private static Action pickV(int s, int stages, int m, int vsCount, int limit, int t, Map<Long, Integer> doneAt,
                              int[] nextF, int[] nextB, int held, ArrayDeque<Action> pendingW) {
    for (int c = 1; c >= 0; c--) {
      int mb = nextB[c], vs = ChunkLayout.V.virtualStage(s, c, stages);
      long dep = vs == vsCount - 1 ? key(Action.Kind.FORWARD, mb, vs) : key(Action.Kind.BACKWARD_INPUT, mb, vs + 1);
      if (mb < m && ready(doneAt, key(Action.Kind.FORWARD, mb, vs), t) && ready(doneAt, dep, t)) return Action.backwardInput(mb, c);
    }
    if (held < limit) {
      for (int c = 1; c >= 0; c--) {
        int mb = nextF[c], vs = ChunkLayout.V.virtualStage(s, c, stages);
        if (mb < m && (vs == 0 || ready(doneAt, key(Action.Kind.FORWARD, mb, vs - 1), t))) return Action.forward(mb, c);
      }
    }
    return pendingW.peek();
  }

  private static boolean ready(Map<Long, Integer> doneAt, long key, int t) {
    Integer at = doneAt.get(key);
    return at != null && at <= t;
  }

  private static long key(Action.Kind kind, int mb, int vs) { return ((long) mb * 1024 + vs) * 16 + kind.ordinal(); }
}
