package dev.weft.parallel.pipeline;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs every stage's action list together, without tensors, under the executor's semantics: a send
 * never blocks (it is posted and awaited at the end of the step), a receive blocks until the
 * matching send was posted. Checks that each receive meets the next send on its channel (same
 * micro-batch, adjacent virtual stage), that each compute has its input (forward before backward,
 * B before W, activation or gradient received first), that every micro-batch and chunk is forwarded,
 * and has its input and weight gradients computed, exactly once per stage (a whole backward does
 * both), and that nothing is left unreceived. A micro-batch counts as in flight from its forward
 * until its weight gradient: the executor keeps its graph until then. A state where no stage
 * can move is a deadlock, reported with each stuck stage's next action.
 */
public final class ScheduleSimulator {
  private ScheduleSimulator() {}

  public static Simulation simulate(Schedule schedule) { return simulate(schedule, Costs.UNIT); }

  public static Simulation simulate(Schedule schedule, Costs costs) {
    return new Run(schedule, costs).toEnd();
  }

  private record Channel(int from, int to, boolean activation) {}

  private record Message(int microBatch, int senderVirtualStage, double time) {}

  private record Key(int microBatch, int chunk) {}

  private static final class StageState {
    int pc;
    double clock;
    double busy;
    int inFlight;
    int peak;
    final Set<Key> forwarded = new HashSet<>();
    final Set<Key> backwarded = new HashSet<>(); // input gradient computed (by B or a whole backward)
    final Set<Key> weighted = new HashSet<>(); // weight gradient computed (by W or a whole backward)
    final Set<Key> activationsIn = new HashSet<>();
    final Set<Key> gradientsIn = new HashSet<>();
    final List<Simulation.Timed> timeline = new ArrayList<>();
  }

  private static final class Run {
    private final Schedule s;
    private final Costs costs;
    private final StageState[] st;
    private final Map<Channel, ArrayDeque<Message>> channels = new HashMap<>();

    Run(Schedule s, Costs costs) {
      this.s = s;
      this.costs = costs;
      this.st = new StageState[s.stages()];
      for (int i = 0; i < st.length; i++) st[i] = new StageState();
    }

    Simulation toEnd() {
      boolean moved = true;
      while (moved) {
        moved = false;
        for (int stage = 0; stage < st.length; stage++) {
          while (st[stage].pc < s.actions(stage).size() && tryStep(stage)) moved = true;
        }
      }
      List<String> stuck = new ArrayList<>();
      for (int stage = 0; stage < st.length; stage++) {
        int pc = st[stage].pc;
        if (pc < s.actions(stage).size()) {
          stuck.add("stage " + stage + " waits at action " + pc + " " + s.actions(stage).get(pc));
        }
      }
      if (!stuck.isEmpty()) throw new ScheduleException("deadlock in " + s.name() + ": " + String.join("; ", stuck));
      checkComplete();
      double makespan = 0;
      List<Integer> peaks = new ArrayList<>();
      List<Double> busy = new ArrayList<>();
      List<List<Simulation.Timed>> timeline = new ArrayList<>();
      for (StageState x : st) {
        makespan = Math.max(makespan, x.clock);
        peaks.add(x.peak);
        busy.add(x.busy);
        timeline.add(x.timeline);
      }
      return new Simulation(s, costs, peaks, busy, makespan, timeline);
    }

    /** Runs the stage's next action if it can; false when it must wait for a message. */
    private boolean tryStep(int stage) {
      StageState x = st[stage];
      Action a = s.actions(stage).get(x.pc);
      int vs = s.virtualStage(stage, a.chunk());
      Key key = new Key(a.microBatch(), a.chunk());
      double start = x.clock, end = x.clock;
      if (a.chunk() >= s.virtualStages() || a.microBatch() >= s.microBatches()) fail(stage, a, "is outside the schedule's micro-batches or chunks");
      switch (a.kind()) {
        case FORWARD -> {
          if (!x.forwarded.add(key)) fail(stage, a, "forwards this micro-batch a second time");
          boolean hasInput = vs == 0
              || (s.ownerOf(vs - 1) == stage ? x.forwarded.contains(new Key(a.microBatch(), s.chunkOf(vs - 1))) : x.activationsIn.remove(key));
          if (!hasInput) fail(stage, a, "runs before its input activation arrived");
          x.peak = Math.max(x.peak, ++x.inFlight);
          end = start + costs.forward();
        }
        case BACKWARD, BACKWARD_INPUT -> {
          if (!x.forwarded.contains(key)) fail(stage, a, "runs before the forward of the same micro-batch");
          if (!x.backwarded.add(key)) fail(stage, a, "backwards this micro-batch a second time");
          int last = s.totalVirtualStages() - 1;
          boolean hasGrad = vs == last
              || (s.ownerOf(vs + 1) == stage ? x.backwarded.contains(new Key(a.microBatch(), s.chunkOf(vs + 1))) : x.gradientsIn.remove(key));
          if (!hasGrad) fail(stage, a, "runs before its output gradient arrived");
          if (a.kind() == Action.Kind.BACKWARD) weighted(stage, a, x, key);
          end = start + costs.of(a.kind());
        }
        case BACKWARD_WEIGHT -> {
          if (!x.backwarded.contains(key)) fail(stage, a, "runs before the input-gradient part (B) of the same micro-batch");
          weighted(stage, a, x, key);
          end = start + costs.of(a.kind());
        }
        case SEND_ACT, SEND_GRAD -> {
          boolean act = a.kind() == Action.Kind.SEND_ACT;
          int target = act ? vs + 1 : vs - 1;
          if (target < 0 || target >= s.totalVirtualStages() || s.ownerOf(target) != a.peer()) {
            fail(stage, a, "sends to a stage that does not hold the neighbouring virtual stage");
          }
          if (!(act ? x.forwarded : x.backwarded).contains(key)) fail(stage, a, "sends before computing what it sends");
          channels.computeIfAbsent(new Channel(stage, a.peer(), act), c -> new ArrayDeque<>())
              .add(new Message(a.microBatch(), vs, x.clock));
        }
        case RECV_ACT, RECV_GRAD -> {
          boolean act = a.kind() == Action.Kind.RECV_ACT;
          int source = act ? vs - 1 : vs + 1;
          if (source < 0 || source >= s.totalVirtualStages() || s.ownerOf(source) != a.peer()) {
            fail(stage, a, "receives from a stage that does not hold the neighbouring virtual stage");
          }
          ArrayDeque<Message> q = channels.get(new Channel(a.peer(), stage, act));
          if (q == null || q.isEmpty()) return false;
          Message m = q.poll();
          if (m.microBatch() != a.microBatch() || m.senderVirtualStage() != source) {
            fail(stage, a, "meets a send of micro-batch " + m.microBatch() + " from virtual stage " + m.senderVirtualStage()
                + " instead: sends and receives on this channel are in different orders");
          }
          (act ? x.activationsIn : x.gradientsIn).add(key);
          end = Math.max(start, m.time() + costs.transfer());
        }
        default -> throw new IllegalStateException();
      }
      if (a.kind().isCompute()) x.busy += end - start;
      x.clock = end;
      x.timeline.add(new Simulation.Timed(a, start, end));
      x.pc++;
      return true;
    }

    /** The micro-batch's graph is held from its forward until its weight gradient is computed. */
    private void weighted(int stage, Action a, StageState x, Key key) {
      if (!x.weighted.add(key)) fail(stage, a, "computes this micro-batch's weight gradient a second time");
      x.inFlight--;
    }

    private void checkComplete() {
      int expected = s.microBatches() * s.virtualStages();
      for (int stage = 0; stage < st.length; stage++) {
        StageState x = st[stage];
        if (x.forwarded.size() != expected || x.backwarded.size() != expected || x.weighted.size() != expected) {
          throw new ScheduleException(s.name() + ": stage " + stage + " forwards " + x.forwarded.size() + ", backwards "
              + x.backwarded.size() + " and computes the weight gradients of " + x.weighted.size()
              + " (micro-batch, chunk) pairs; every one of the " + expected + " needs all three");
        }
      }
      channels.forEach((c, q) -> {
        if (!q.isEmpty()) {
          throw new ScheduleException(s.name() + ": stage " + c.from() + " sends " + q.size() + (c.activation() ? " activation(s)" : " gradient(s)")
              + " to stage " + c.to() + " that are never received");
        }
      });
    }

    private void fail(int stage, Action a, String why) {
      throw new ScheduleException(s.name() + ": stage " + stage + " action " + st[stage].pc + " " + a + " " + why);
    }
  }
}
