package dev.weft.elastic;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Declares a watched counter dead when its value has not changed for the timeout: heartbeats of
 * workers and agents, and the step counters of ranks (a rank hung in a collective stops stepping).
 * Only changes seen by this observer count, so clocks of other machines do not matter. Pure.
 */
public final class Watchdog {
  private record Seen(String value, long sinceNanos) {}

  private final Duration timeout;
  private final Map<String, Seen> seen = new LinkedHashMap<>();

  public Watchdog(Duration timeout) { this.timeout = timeout; }

  /** Starts watching {@code who} at {@code nowNanos} (its first value may take the whole timeout to appear). */
  public void watch(String who, long nowNanos) { seen.putIfAbsent(who, new Seen(null, nowNanos)); }

  /** Records the current value of a watched counter (null: not written yet). */
  public void observe(String who, String value, long nowNanos) {
    Seen s = seen.get(who);
    if (s == null || !java.util.Objects.equals(s.value(), value)) seen.put(who, new Seen(value, nowNanos));
  }

  /** Who has not changed for longer than the timeout, with the seconds of silence. */
  public Map<String, Double> silent(long nowNanos) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (var e : seen.entrySet()) {
      long quiet = nowNanos - e.getValue().sinceNanos();
      if (quiet > timeout.toNanos()) out.put(e.getKey(), quiet / 1e9);
    }
    return out;
  }

  public List<String> watched() { return new ArrayList<>(seen.keySet()); }

  public Duration timeout() { return timeout; }
}
