package dev.weft.preempt;

import java.time.Duration;
import java.util.Map;

/**
 * The time a process has between SIGTERM and SIGKILL (a pod's {@code terminationGracePeriodSeconds}, rendered into
 * {@code WEFT_GRACE_SECONDS}), and the deadlines taken from it: a worker gives up its emergency save at
 * {@link #saveDeadline()}, its supervisor (launcher, agent) stops waiting for it half a margin later, and both are
 * still before SIGKILL.
 */
public record GracePeriod(int seconds) {
  /** The pod's grace period, rendered by {@code weft k8s render} into every container. */
  public static final String ENV = "WEFT_GRACE_SECONDS";
  public static final int DEFAULT_SECONDS = 120;

  public GracePeriod {
    if (seconds < 1) throw new IllegalArgumentException("a grace period of " + seconds + " s");
  }

  /** The environment's value when it is a positive whole number, else {@code specSeconds} (deployment.terminationGraceSeconds), else 120. */
  public static GracePeriod of(Map<String, String> env, int specSeconds) {
    String v = env.get(ENV);
    if (v != null) {
      try {
        int s = Integer.parseInt(v.trim());
        if (s > 0) return new GracePeriod(s);
      } catch (NumberFormatException ignored) {
        // not a number: the spec's value stands
      }
    }
    return new GracePeriod(specSeconds > 0 ? specSeconds : DEFAULT_SECONDS);
  }

  /** Kept back for exiting and for the supervisor: a tenth of the period, at least 2 s and at most 15 s. */
  public Duration margin() {
    return Duration.ofMillis(Math.min(15_000, Math.max(2_000, seconds * 100L)));
  }

  /** From SIGTERM: when a worker stops waiting for its emergency save and exits on the last committed checkpoint. */
  public Duration saveDeadline() {
    return Duration.ofSeconds(seconds).minus(margin());
  }

  /** From SIGTERM: when a launcher or agent stops waiting for its workers (which are past their own deadline then). */
  public Duration superviseDeadline() {
    return Duration.ofSeconds(seconds).minus(margin().dividedBy(2));
  }
}
