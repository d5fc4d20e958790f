package dev.weft.parallel.pipeline;

import java.util.List;

/**
 * What one stage did during a step, in wall-clock nanoseconds. Receives last until the data is
 * there, so time outside forward and backward is idle: the measured bubble.
 */
public record Timeline(int stage, long startNanos, long endNanos, List<Event> events) {
  public record Event(Action action, long startNanos, long endNanos) {
    public long nanos() { return endNanos - startNanos; }
  }

  public Timeline {
    events = List.copyOf(events);
  }

  public long spanNanos() { return endNanos - startNanos; }

  public long busyNanos() {
    return events.stream().filter(e -> e.action().kind().isCompute()).mapToLong(Event::nanos).sum();
  }

  /** Idle fraction of the step on this stage. */
  public double bubble() { return spanNanos() <= 0 ? 0 : 1.0 - (double) busyNanos() / spanNanos(); }
}
