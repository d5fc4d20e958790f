package dev.weft.spec;

/**
 * One reward of {@code train.grpo.rewards}: {@code name} a built-in ({@code exact}, {@code regex}, {@code arithmetic})
 * or the class name of a {@code dev.weft.train.grpo.RewardFunction} on the classpath; {@code weight} its share of the
 * summed reward (default 1); {@code field} the row's field {@code exact} compares with (default {@code answer});
 * {@code pattern} the regular expression of {@code regex}, or where {@code exact} finds the answer; {@code stop} the
 * text that ends {@code exact}'s answer when there is no pattern.
 */
public record RewardSpec(String name, Double weight, String field, String pattern, String stop) {
  public RewardSpec {
    name = name == null ? "" : name;
    weight = weight == null ? 1.0 : weight;
    field = field == null ? "answer" : field;
    pattern = pattern == null ? "" : pattern;
    stop = stop == null ? "" : stop;
  }

  public static RewardSpec named(String name) { return new RewardSpec(name, 1.0, null, null, null); }
}
