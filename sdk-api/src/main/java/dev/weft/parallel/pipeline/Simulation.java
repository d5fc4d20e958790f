package dev.weft.parallel.pipeline;

import java.util.List;

/**
 * What the simulator found for a schedule that runs to the end: per stage the peak number of
 * micro-batch activations alive at once (forwarded, not yet backwarded, counted per chunk), the busy
 * (compute) time, and each action's simulated start and end. The step takes {@code makespan}.
 */
public record Simulation(Schedule schedule, Costs costs, List<Integer> peakInFlight, List<Double> busy,
                         double makespan, List<List<Timed>> timeline) {
  public record Timed(Action action, double start, double end) {}

  public Simulation {
    peakInFlight = List.copyOf(peakInFlight);
    busy = List.copyOf(busy);
    timeline = timeline.stream().map(List::copyOf).toList();
  }

  /** Fraction of the step this stage spends idle. */
  public double bubble(int stage) { return makespan <= 0 ? 0 : 1 - busy.get(stage) / makespan; }

  /**
   * The textbook bubble (p−1)/(v·m + p−1) for p stages, m micro-batches and v chunks per stage:
   * (p−1) slots of (forward + backward) of one chunk out of v·m useful ones. The simulator meets it
   * exactly for all three schedules when every chunk costs the same and transfers are free.
   */
  public static double theoreticalBubble(int stages, int microBatches, int virtualStages) {
    return (stages - 1.0) / ((double) virtualStages * microBatches + stages - 1.0);
  }
}
