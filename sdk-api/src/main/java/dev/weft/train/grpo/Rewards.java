package dev.weft.train.grpo;

import dev.weft.error.BadInputException;
import dev.weft.spec.RewardSpec;
import dev.weft.spec.SpecException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The rewards of a GRPO run, each with a name (for its metrics) and a weight: a completion's reward is the weighted
 * sum. A reward that throws or gives a non-finite value is the user's mistake: one line naming the reward and the
 * row ({@link BadInputException}, exit 2).
 */
public final class Rewards {
  /** One weighted reward; {@code name} keys its metrics ({@code reward/NAME_mean}). */
  public record Weighted(String name, RewardFunction fn, double weight) {}

  /**
   * The scores of a batch: {@code total} [N] the weighted sums, {@code each[k]} [N] reward k's own values.
   */
  public record Scores(double[] total, double[][] each) {}

  private final List<Weighted> rewards;

  public Rewards(List<Weighted> rewards) {
    if (rewards.isEmpty()) {
      throw new SpecException("train.grpo.rewards", "is empty; name at least one reward (exact, regex, arithmetic or a RewardFunction "
          + "class) or set one with .reward(fn) in the DSL");
    }
    this.rewards = List.copyOf(rewards);
  }

  public List<Weighted> list() { return rewards; }

  /** The rewards a spec names, then those given in code (the DSL's {@code .reward}). */
  public static Rewards of(List<RewardSpec> specs, List<Weighted> inCode) {
    List<Weighted> all = new ArrayList<>();
    for (int i = 0; i < specs.size(); i++) {
      RewardSpec r = specs.get(i);
      all.add(new Weighted(uniqueName(all, shortName(r.name())), resolve(r, "train.grpo.rewards[" + i + "].name"), r.weight()));
    }
    for (Weighted w : inCode) all.add(new Weighted(uniqueName(all, w.name()), w.fn(), w.weight()));
    return new Rewards(all);
  }

  /** A metric's name for a reward: a class's simple name, {@code code} for a DSL reward, else the built-in's name. */
  private static String shortName(String name) {
    if (name.startsWith(CodeRewards.PREFIX)) return "code";
    return name.substring(name.lastIndexOf('.') + 1);
  }

  private static String uniqueName(List<Weighted> before, String name) {
    java.util.Set<String> taken = new java.util.HashSet<>();
    before.forEach(w -> taken.add(w.name()));
    String n = name;
    for (int k = 2; taken.contains(n); k++) n = name + "_" + k;
    return n;
  }

  /** A built-in, or a class on the classpath implementing {@link RewardFunction} with a public no-argument constructor. */
  static RewardFunction resolve(RewardSpec r, String field) {
    switch (r.name()) {
      case "exact": return BuiltinRewards.exact(r.field(), r.pattern(), r.stop());
      case "regex": return BuiltinRewards.regex(r.pattern());
      case "arithmetic": return BuiltinRewards.arithmetic();
      default: break;
    }
    if (r.name().startsWith(CodeRewards.PREFIX)) {
      RewardFunction fn = CodeRewards.find(r.name());
      if (fn == null) {
        throw new SpecException(field, r.name() + " is a reward given in code (.reward(fn)), which only a run in the same JVM (fit()) "
            + "has; name a RewardFunction class instead for worker processes");
      }
      return fn;
    }
    Class<?> c;
    try {
      c = Class.forName(r.name(), true, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new SpecException(field, "'" + r.name() + "' is neither a built-in reward (exact, regex, arithmetic) nor a class on the classpath");
    }
    if (!RewardFunction.class.isAssignableFrom(c)) {
      throw new SpecException(field, r.name() + " does not implement " + RewardFunction.class.getName());
    }
    try {
      return (RewardFunction) c.getConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new SpecException(field, r.name() + " needs a public no-argument constructor (" + e.getClass().getSimpleName() + ")");
    }
  }

  /**
   * Scores completions: {@code rowIds[i]} names completion i's row in messages (its line in the prompt file).
   */
  public Scores score(List<String> prompts, List<String> completions, List<Map<String, Object>> rows, List<String> rowIds) {
    int n = completions.size();
    double[] total = new double[n];
    double[][] each = new double[rewards.size()][];
    for (int k = 0; k < rewards.size(); k++) {
      Weighted w = rewards.get(k);
      double[] v;
      try {
        v = w.fn().scoreAll(prompts, completions, rows);
      } catch (Exception e) {
        int at = failingRow(w.fn(), prompts, completions, rows);
        throw new BadInputException("reward " + w.name() + " threw on " + (at >= 0 ? rowIds.get(at) : "a batch of rows") + ": "
            + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage()) + "; fix the reward or that row");
      }
      if (v == null || v.length != n) {
        throw new BadInputException("reward " + w.name() + " gave " + (v == null ? "no" : v.length) + " values for " + n
            + " completions; its scoreAll must give one per completion");
      }
      for (int i = 0; i < n; i++) {
        if (!Double.isFinite(v[i])) {
          throw new BadInputException("reward " + w.name() + " gave " + v[i] + " on " + rowIds.get(i)
              + "; a reward must be a finite number");
        }
        total[i] += w.weight() * v[i];
      }
      each[k] = v;
    }
    return new Scores(total, each);
  }

  /** The first completion whose single score throws, to name its row; -1 when none does alone. */
  private static int failingRow(RewardFunction fn, List<String> prompts, List<String> completions, List<Map<String, Object>> rows) {
    for (int i = 0; i < completions.size(); i++) {
      try {
        fn.score(prompts.get(i), completions.get(i), rows.get(i));
      } catch (Exception e) {
        return i;
      }
    }
    return -1;
  }
}
