package dev.weft.train.grpo;

import java.util.List;
import java.util.Map;

/**
 * A verifiable reward for GRPO, in plain Java: how good {@code completion} is as an answer to {@code prompt}, given
 * the prompt dataset's {@code row} (every field of its JSONL line: an expected answer, test cases, an id). Higher is
 * better; any finite scale. A reward that throws or returns NaN or an infinity stops the run with one line naming the
 * row. Named in YAML ({@code train.grpo.rewards}) as a built-in ({@link BuiltinRewards}) or by a class name with a
 * public no-argument constructor; set in the DSL with {@code .reward(fn)} or {@code .reward(fn, weight)}.
 */
@FunctionalInterface
public interface RewardFunction {
  double score(String prompt, String completion, Map<String, Object> row) throws Exception;

  /**
   * The rewards of a batch of completions ({@code prompts}, {@code completions} and {@code rows} of equal length), for
   * rewards that are cheaper together (one compiler run, one database round trip); one {@link #score} each by default.
   */
  default double[] scoreAll(List<String> prompts, List<String> completions, List<Map<String, Object>> rows) throws Exception {
    double[] out = new double[completions.size()];
    for (int i = 0; i < out.length; i++) out[i] = score(prompts.get(i), completions.get(i), rows.get(i));
    return out;
  }
}
