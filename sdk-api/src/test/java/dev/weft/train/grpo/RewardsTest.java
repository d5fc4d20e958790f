package dev.weft.train.grpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.error.BadInputException;
import dev.weft.spec.RewardSpec;
import dev.weft.spec.SpecException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 45 item 2: the built-in rewards, weights, a class named in YAML, and bad rewards refused in one line naming the row. */
class RewardsTest {
  /** A reward as a user writes it: a class on the classpath with a public no-argument constructor. */
  public static final class ShortIsBetter implements RewardFunction {
    @Override public double score(String prompt, String completion, Map<String, Object> row) { return -completion.length(); }
  }

  private static final List<String> IDS = List.of("line 1 of p.jsonl", "line 2 of p.jsonl", "line 3 of p.jsonl");

  @Test
  void builtinsScoreWhatTheyName() throws Exception {
    RewardFunction arith = BuiltinRewards.arithmetic();
    assertThat(arith.score("5+6=11;37+45=", "82;", Map.of())).isEqualTo(1);
    assertThat(arith.score("37+45=", "83;", Map.of())).isZero();
    assertThat(arith.score("7*-3=", " -21", Map.of())).isEqualTo(1);
    assertThat(arith.score("9-12=", "abc", Map.of())).isZero();
    assertThatThrownBy(() -> arith.score("hello", "1", Map.of())).hasMessageContaining("12+34=");

    assertThat(BuiltinRewards.exact("answer", "", ";").score("q", " 42;junk", Map.of("answer", 42))).isEqualTo(1);
    assertThat(BuiltinRewards.exact("answer", "", "").score("q", "41", Map.of("answer", "42"))).isZero();
    RewardFunction boxed = BuiltinRewards.exact("solution", "\\\\boxed\\{([^}]*)\\}", "");
    assertThat(boxed.score("q", "so \\boxed{3} no, \\boxed{7}", Map.of("solution", "7"))).isEqualTo(1);
    assertThat(boxed.score("q", "no box 7", Map.of("solution", "7"))).isZero();

    RewardFunction format = BuiltinRewards.regex("^<think>.*</think>\\s*<answer>.*</answer>$");
    assertThat(format.score("q", "<think>a\nb</think> <answer>1</answer>", Map.of())).isEqualTo(1);
    assertThat(format.score("q", "<answer>1</answer>", Map.of())).isZero();
  }

  @Test
  void weightedSumOfNamedAndCodedRewardsWithUniqueNames() {
    Rewards r = Rewards.of(List.of(RewardSpec.named("arithmetic"), new RewardSpec(ShortIsBetter.class.getName(), 0.5, null, null, null)),
        List.of(new Rewards.Weighted("arithmetic", (p, c, row) -> 2, 0.25)));
    assertThat(r.list()).extracting(Rewards.Weighted::name).containsExactly("arithmetic", "RewardsTest$ShortIsBetter", "arithmetic_2");
    Rewards.Scores s = r.score(List.of("1+1=", "1+1=", "2+2="), List.of("2;", "3;;", "4"), List.of(Map.of(), Map.of(), Map.of()), IDS);
    assertThat(s.total()).containsExactly(1 - 1 + 0.5, 0 - 1.5 + 0.5, 1 - 0.5 + 0.5);
    assertThat(s.each()[0]).containsExactly(1, 0, 1);
  }

  @Test
  void badRewardsAreRefusedInOneLineNamingTheRow() {
    Rewards nan = Rewards.of(List.of(), List.of(new Rewards.Weighted("ratio", (p, c, row) -> c.isEmpty() ? Double.NaN : 1, 1)));
    assertThatThrownBy(() -> nan.score(List.of("a", "b", "c"), List.of("x", "", "y"), List.of(Map.of(), Map.of(), Map.of()), IDS))
        .isInstanceOf(BadInputException.class).hasMessage("reward ratio gave NaN on line 2 of p.jsonl; a reward must be a finite number");
    Rewards exact = Rewards.of(List.of(RewardSpec.named("exact")), List.of());
    assertThatThrownBy(() -> exact.score(List.of("a", "b", "c"), List.of("1", "2", "3"), List.of(Map.of("answer", 1), Map.of("answer", 2), Map.of()), IDS))
        .isInstanceOf(BadInputException.class).hasMessageStartingWith("reward exact threw on line 3 of p.jsonl: ")
        .hasMessageContaining("no field 'answer'").hasMessageNotContaining("\n");
    assertThatThrownBy(() -> Rewards.of(List.of(RewardSpec.named("com.example.Missing")), List.of()))
        .isInstanceOf(SpecException.class).hasMessageContaining("train.grpo.rewards[0].name");
    assertThatThrownBy(() -> Rewards.of(List.of(RewardSpec.named("java.lang.String")), List.of()))
        .isInstanceOf(SpecException.class).hasMessageContaining("does not implement");
    assertThatThrownBy(() -> Rewards.of(List.of(), List.of())).isInstanceOf(SpecException.class).hasMessageContaining("train.grpo.rewards");
  }
}
