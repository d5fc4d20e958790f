package dev.weft.k8s.apply;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One line of {@code weft k8s status} for a run's job object, from its {@code status}: true conditions, then progress. */
final class JobStatus {
  private JobStatus() {}

  static String line(String kind, Object status) {
    String conditions = conditions(status);
    String progress = "TrainJob".equals(kind) ? trainerProgress(status) : null;
    return progress == null ? conditions : conditions + "; " + progress;
  }

  static String conditions(Object status) {
    if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> cs) || cs.isEmpty()) {
      return "no conditions yet (is its operator running?)";
    }
    List<String> out = new ArrayList<>();
    for (Object c : cs) {
      if (c instanceof Map<?, ?> m && "True".equals(m.get("status"))) out.add(String.valueOf(m.get("type")));
    }
    return out.isEmpty() ? "no condition is true yet" : String.join(", ", out);
  }

  /**
   * A TrainJob's {@code status.trainerStatus} (KEP-2779; rank 0 of a Weft run reports it where the Trainer's
   * TrainJobStatus feature is on): "progress 45%, about 13m20s left, step 450/1000, loss=2.31 (at TIME)"; null without one.
   */
  static String trainerProgress(Object status) {
    if (!(status instanceof Map<?, ?> s) || !(s.get("trainerStatus") instanceof Map<?, ?> t)) return null;
    List<String> parts = new ArrayList<>();
    if (t.get("progressPercentage") instanceof Number p) parts.add("progress " + p.intValue() + "%");
    if (t.get("estimatedRemainingSeconds") instanceof Number r) parts.add("about " + duration(r.longValue()) + " left");
    Map<String, String> metrics = new java.util.LinkedHashMap<>();
    if (t.get("metrics") instanceof List<?> ms) {
      for (Object m : ms) if (m instanceof Map<?, ?> mm) metrics.put(String.valueOf(mm.get("name")), String.valueOf(mm.get("value")));
    }
    String step = metrics.remove("current_step"), total = metrics.remove("total_steps");
    if (step != null) parts.add("step " + step + (total == null ? "" : "/" + total));
    metrics.forEach((k, v) -> parts.add(k + "=" + v));
    String line = parts.isEmpty() ? "trainer status without figures" : String.join(", ", parts);
    return t.get("lastUpdatedTime") == null ? line : line + " (at " + t.get("lastUpdatedTime") + ")";
  }

  static String duration(long seconds) {
    long h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
    return h > 0 ? h + "h" + m + "m" : m > 0 ? m + "m" + s + "s" : s + "s";
  }
}
