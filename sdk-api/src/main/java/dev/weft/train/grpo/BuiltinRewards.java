package dev.weft.train.grpo;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rewards named in YAML without code. {@code exact}: 1 when the completion's answer equals the row's
 * {@code field} (default {@code answer}), both trimmed, else 0; the answer is the completion up to the first
 * {@code stop} text, or with a {@code pattern} its last match's group 1 (the whole match without a group).
 * {@code regex}: 1 when {@code pattern} is found in the completion (anchor it with ^…$ to demand the whole), else 0: a
 * format reward. {@code arithmetic}: 1 when the completion starts with the value of the prompt's last
 * {@code a+b=} (also −, *; integers), else 0.
 */
public final class BuiltinRewards {
  private static final Pattern EXPRESSION = Pattern.compile("(-?\\d+)\\s*([-+*])\\s*(-?\\d+)\\s*=\\s*$");
  private static final Pattern LEADING_INT = Pattern.compile("^\\s*(-?\\d+)");

  private BuiltinRewards() {}

  public static RewardFunction exact(String field, String pattern, String stop) {
    Pattern p = pattern == null || pattern.isEmpty() ? null : Pattern.compile(pattern, Pattern.DOTALL);
    return (prompt, completion, row) -> {
      Object expected = row.get(field);
      if (expected == null) throw new IllegalArgumentException("has no field '" + field + "' for the exact-answer reward");
      String answer = completion;
      if (p != null) {
        Matcher m = p.matcher(completion);
        String last = null;
        while (m.find()) last = m.groupCount() >= 1 ? m.group(1) : m.group();
        if (last == null) return 0;
        answer = last;
      } else if (stop != null && !stop.isEmpty() && answer.contains(stop)) {
        answer = answer.substring(0, answer.indexOf(stop));
      }
      return answer.trim().equals(String.valueOf(expected).trim()) ? 1 : 0;
    };
  }

  public static RewardFunction regex(String pattern) {
    Pattern p = Pattern.compile(pattern, Pattern.DOTALL);
    return (prompt, completion, row) -> p.matcher(completion).find() ? 1 : 0;
  }

  public static RewardFunction arithmetic() {
    return (prompt, completion, row) -> {
      Matcher q = EXPRESSION.matcher(prompt);
      if (!q.find()) throw new IllegalArgumentException("its prompt does not end with an expression such as 12+34= for the arithmetic reward");
      long a = Long.parseLong(q.group(1)), b = Long.parseLong(q.group(3));
      long value = switch (q.group(2)) {
        case "+" -> a + b;
        case "-" -> a - b;
        default -> a * b;
      };
      Matcher m = LEADING_INT.matcher(completion);
      return m.find() && m.group(1).length() < 19 && Long.parseLong(m.group(1)) == value ? 1 : 0;
    };
  }

  /** Whether {@code name} is a built-in's name. */
  public static boolean isBuiltin(String name) { return Map.of("exact", 1, "regex", 1, "arithmetic", 1).containsKey(name); }
}
