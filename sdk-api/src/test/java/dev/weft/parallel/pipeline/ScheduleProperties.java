package dev.weft.parallel.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.jqwik.api.Assume;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Every generated schedule, run through the simulator: no deadlock, sends meet receives in order,
 * forward before backward (all checked by the simulator, which throws otherwise), and the promises
 * on in-flight activations and bubble hold.
 */
class ScheduleProperties {
  private static final double EPS = 1e-9;

  @Property
  void gpipeHoldsEveryMicroBatchAndHasTheTextbookBubble(@ForAll @IntRange(min = 1, max = 8) int p,
                                                        @ForAll @IntRange(min = 1, max = 32) int m) {
    Simulation sim = ScheduleSimulator.simulate(Schedules.gpipe(p, m));
    for (int s = 0; s < p; s++) {
      assertThat(sim.peakInFlight().get(s)).isEqualTo(m);
      assertThat(sim.bubble(s)).isCloseTo(Simulation.theoreticalBubble(p, m, 1), within(EPS));
    }
  }

  @Property
  void oneFOneBHoldsAtMostStagesAndHasTheTextbookBubble(@ForAll @IntRange(min = 1, max = 8) int p,
                                                        @ForAll @IntRange(min = 1, max = 32) int m) {
    Schedule sch = Schedules.oneFOneB(p, m);
    Simulation sim = ScheduleSimulator.simulate(sch);
    for (int s = 0; s < p; s++) {
      assertThat(sim.peakInFlight().get(s)).isLessThanOrEqualTo(p).isEqualTo(sch.promisedPeakInFlight().get(s));
      assertThat(sim.bubble(s)).as("stage %d", s).isCloseTo(Simulation.theoreticalBubble(p, m, 1), within(EPS));
    }
  }

  @Property(tries = 1100, generation = GenerationMode.EXHAUSTIVE)
  void interleavedKeepsItsPromiseAndDividesTheBubbleByTheChunks(@ForAll @IntRange(min = 1, max = 8) int p,
                                                      @ForAll @IntRange(min = 1, max = 32) int m,
                                                      @ForAll @IntRange(min = 1, max = 4) int v) {
    Assume.that(m % p == 0);
    Schedule sch = Schedules.of("interleaved-1f1b", p, m, v);
    Simulation sim = ScheduleSimulator.simulate(sch);
    // Chunks are 1/v of a stage: scale costs so one micro-batch's full-stage work is the same as in 1F1B.
    Simulation scaled = ScheduleSimulator.simulate(sch, new Costs(1.0 / v, 2.0 / v, 0));
    Simulation plain = ScheduleSimulator.simulate(Schedules.oneFOneB(p, m));
    for (int s = 0; s < p; s++) {
      assertThat(sim.peakInFlight().get(s)).isEqualTo(sch.promisedPeakInFlight().get(s));
      assertThat(sim.bubble(s)).isCloseTo(Simulation.theoreticalBubble(p, m, v), within(EPS));
      assertThat(scaled.makespan()).isLessThanOrEqualTo(plain.makespan() + EPS);
    }
  }

  @Example
  void aScheduleThatWaitsOnBothSidesIsADeadlockNamingTheStuckStages() {
    Schedule bad = new Schedule("bad", 2, 1, 1, List.of(
        List.of(new Action(Action.Kind.RECV_GRAD, 0, 0, 1), Action.forward(0, 0), new Action(Action.Kind.SEND_ACT, 0, 0, 1), Action.backward(0, 0)),
        List.of(new Action(Action.Kind.RECV_ACT, 0, 0, 0), Action.forward(0, 0), Action.backward(0, 0), new Action(Action.Kind.SEND_GRAD, 0, 0, 0))),
        List.of(1, 1));
    assertThatThrownBy(() -> ScheduleSimulator.simulate(bad)).isInstanceOf(ScheduleException.class)
        .hasMessageContaining("deadlock").hasMessageContaining("stage 0 waits at action 0 RECV_GRAD")
        .hasMessageContaining("stage 1 waits at action 0 RECV_ACT");
  }

  @Example
  void receivesInAnotherOrderThanTheSendsAreCaught() {
    Schedule swapped = new Schedule("swapped", 2, 2, 1, List.of(
        List.of(Action.forward(0, 0), new Action(Action.Kind.SEND_ACT, 0, 0, 1), Action.forward(1, 0), new Action(Action.Kind.SEND_ACT, 1, 0, 1)),
        List.of(new Action(Action.Kind.RECV_ACT, 1, 0, 0), Action.forward(1, 0))),
        List.of(2, 2));
    assertThatThrownBy(() -> ScheduleSimulator.simulate(swapped)).hasMessageContaining("different orders");
  }

  @Example
  void backwardBeforeForwardIsCaught() {
    Schedule early = new Schedule("early", 1, 1, 1, List.of(List.of(Action.backward(0, 0), Action.forward(0, 0))), List.of(1));
    assertThatThrownBy(() -> ScheduleSimulator.simulate(early)).hasMessageContaining("before the forward");
  }

  @Example
  void namesAndDivisibilityAreCheckedWithMessagesThatSayWhatToChange() {
    assertThatThrownBy(() -> Schedules.of("zero-bubble", 2, 4, 1))
        .hasMessageContaining("gpipe, 1f1b, interleaved-1f1b");
    assertThatThrownBy(() -> Schedules.of("interleaved-1f1b", 4, 6, 2))
        .hasMessageContaining("parallel.microBatches").hasMessageContaining("4 or 8");
    assertThatThrownBy(() -> Schedules.of("1f1b", 4, 8, 2)).hasMessageContaining("interleaved-1f1b");
    assertThat(Schedules.of(" 1F1B ", 2, 4, 1).name()).isEqualTo("1f1b");
  }
}
