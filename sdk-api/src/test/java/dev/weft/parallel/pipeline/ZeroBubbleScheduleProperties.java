package dev.weft.parallel.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * ZB-H1 and ZBV through the simulator. Cost model: T_F = T_B = T_W = 1 per stage (a whole backward, B + W,
 * costs 2: {@link Costs#UNIT}), free transfers; a ZBV chunk is half a stage, so it costs 1/2 of each.
 * The simulator throws on a deadlock, a missing or repeated F/B/W, B before its gradient or W before its B.
 */
class ZeroBubbleScheduleProperties {
  private static final double EPS = 1e-9;
  private static final Costs HALF = new Costs(0.5, 0.5, 0.5, 0);

  /** Idle time of stage s in time units. */
  private static double idle(Simulation sim, int s) { return sim.makespan() - sim.busy().get(s); }

  @Example
  void atFourStagesAndEightMicroBatchesZbH1HasAThirdOfOneFOneBsBubbleAndZbvLess() {
    Simulation oneFOneB = ScheduleSimulator.simulate(Schedules.oneFOneB(4, 8));
    Simulation h1 = ScheduleSimulator.simulate(Schedules.zbH1(4, 8));
    Simulation v = ScheduleSimulator.simulate(Schedules.zbv(4, 8), HALF);
    assertThat(oneFOneB.makespan()).isEqualTo(33); // 24 of work + (p−1)(T_F+T_B+T_W) = 9 idle
    assertThat(h1.makespan()).isEqualTo(27); // 24 + (p−1)(T_F+T_B−T_W) = 3 idle: the paper's ZB-H1
    assertThat(v.makespan()).isEqualTo(26); // 24 + 2 idle
    for (int s = 0; s < 4; s++) {
      assertThat(idle(oneFOneB, s)).isEqualTo(9);
      assertThat(idle(h1, s)).isEqualTo(3);
      assertThat(idle(v, s)).isEqualTo(2);
      assertThat(h1.bubble(s)).isCloseTo(1.0 / 9, within(EPS));
      assertThat(oneFOneB.bubble(s)).isCloseTo(9.0 / 33, within(EPS));
      assertThat(h1.peakInFlight().get(s)).isEqualTo(4); // 1F1B's peak (stage 0's): p micro-batches
      assertThat(v.peakInFlight().get(s)).isLessThanOrEqualTo(8); // 2p half-stage chunks
    }
  }

  @Property(tries = 200)
  void zbH1RunsEveryPassOnceWithinOneFOneBsMemoryAndNeverSlower(@ForAll @IntRange(min = 1, max = 8) int p,
                                                                @ForAll @IntRange(min = 1, max = 24) int m) {
    Schedule sch = Schedules.zbH1(p, m);
    Simulation sim = ScheduleSimulator.simulate(sch);
    Simulation plain = ScheduleSimulator.simulate(Schedules.oneFOneB(p, m));
    assertThat(sim.makespan()).isLessThanOrEqualTo(plain.makespan() + EPS);
    for (int s = 0; s < p; s++) {
      assertThat(sim.peakInFlight().get(s)).isLessThanOrEqualTo(sch.promisedPeakInFlight().get(s)).isLessThanOrEqualTo(p);
      // 1F1B idles (p−1)(T_F+T_B+T_W); ZB-H1 (p−1)(T_F+T_B−T_W) once m ≥ p, a third, and one more unit per missing micro-batch below
      assertThat(idle(plain, s)).isCloseTo(3.0 * (p - 1), within(EPS));
      assertThat(idle(sim, s)).as("stage %d", s).isCloseTo(m >= p ? p - 1 : 2 * p - 1 - m, within(EPS));
    }
  }

  @Property(tries = 200)
  void zbvRunsEveryPassOnceWithinItsMemoryAndBeatsZbH1(@ForAll @IntRange(min = 1, max = 8) int p,
                                                       @ForAll @IntRange(min = 1, max = 24) int m) {
    Schedule sch = Schedules.zbv(p, m);
    Simulation sim = ScheduleSimulator.simulate(sch, HALF);
    Simulation h1 = ScheduleSimulator.simulate(Schedules.zbH1(p, m));
    assertThat(sch.layout()).isEqualTo(ChunkLayout.V);
    for (int s = 0; s < p; s++) {
      assertThat(sim.peakInFlight().get(s)).isLessThanOrEqualTo(sch.promisedPeakInFlight().get(s)).isLessThanOrEqualTo(2 * p);
    }
    if (m >= p) assertThat(sim.makespan()).isLessThanOrEqualTo(h1.makespan() + EPS);
  }

  @Property(tries = 100)
  void theZeroBubbleSchedulesStayDeadlockFreeWhenCostsDiffer(@ForAll @IntRange(min = 1, max = 6) int p,
                                                             @ForAll @IntRange(min = 1, max = 12) int m,
                                                             @ForAll @IntRange(min = 1, max = 5) int f,
                                                             @ForAll @IntRange(min = 1, max = 5) int b,
                                                             @ForAll @IntRange(min = 1, max = 5) int w,
                                                             @ForAll @IntRange(min = 0, max = 3) int t) {
    Costs c = new Costs(f, b, w, t);
    ScheduleSimulator.simulate(Schedules.zbH1(p, m), c);
    ScheduleSimulator.simulate(Schedules.zbv(p, m), c);
  }

  @Example
  void theVLayoutTurnsOnTheLastStageAndEndsOnTheFirst() {
    Schedule v = Schedules.of("zbv", 4, 4, 2);
    assertThat(v.virtualStage(3, 0)).isEqualTo(3);
    assertThat(v.virtualStage(3, 1)).isEqualTo(4);
    assertThat(v.isFirst(0, 0)).isTrue();
    assertThat(v.isLast(0, 1)).isTrue();
    assertThat(v.actions(3)).noneMatch(a -> a.kind().isSend() && a.peer() == 3);
  }

  @Example
  void theSimulatorRefusesAWeightGradientBeforeItsInputGradientAndAMissingOne() {
    Schedule early = new Schedule("early", 1, 1, 1, List.of(List.of(Action.forward(0, 0), Action.backwardWeight(0, 0),
        Action.backwardInput(0, 0))), List.of(1));
    assertThatThrownBy(() -> ScheduleSimulator.simulate(early)).isInstanceOf(ScheduleException.class).hasMessageContaining("before the input-gradient part");
    Schedule missing = new Schedule("missing", 1, 1, 1, List.of(List.of(Action.forward(0, 0), Action.backwardInput(0, 0))), List.of(1));
    assertThatThrownBy(() -> ScheduleSimulator.simulate(missing)).isInstanceOf(ScheduleException.class).hasMessageContaining("weight gradients of 0");
  }

  @Example
  void zbvNeedsTwoChunksAndZbH1One() {
    assertThatThrownBy(() -> Schedules.of("zbv", 4, 8, 1)).isInstanceOf(ScheduleException.class).hasMessageContaining("two chunks");
    assertThatThrownBy(() -> Schedules.of("zb-h1", 4, 8, 2)).isInstanceOf(ScheduleException.class).hasMessageContaining("one chunk");
  }
}
