package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.metrics.MetricsJson;
import dev.weft.spec.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42: DPO with {@code train.evalEvery} on held-out pairs ({@code data.eval: preference:DIR}) writes eval_loss and
 * TRL's eval_rewards_* to metrics.jsonl; a policy that has not moved scores log 2 and zero margins; every pair counts
 * once in any data-parallel layout (5 pairs over dp = 2: one rank's last pass is padding).
 */
class DpoEvalTest {
  private static final int SEQ = 24;
  @TempDir static Path dir;
  static PreferenceFixture.Qwen2Pairs fixture;
  static Path held;

  @BeforeAll
  static void data() throws Exception {
    fixture = PreferenceFixture.qwen2Pairs(dir);
    held = dir.resolve("held");
    PreferenceFixture.prepare(PreferenceFixture.tokenizer(dir.resolve("tok-held")), PreferenceFixture.rows(dir.resolve("held.jsonl"), 5, 11), held);
  }

  private static dev.weft.Trainer dpo() {
    return fixture.dpo(0.5, SEQ).evalData("preference:" + held).set("train.evalEvery", 1);
  }

  @Test
  void aPolicyThatHasNotMovedScoresLogTwoOnHeldOutPairs() throws Exception {
    Path run = dir.resolve("still");
    dpo().steps(2).lr(1e-30).runDir(run).fit();
    List<JsonNode> evals = evalLines(run);
    assertThat(evals).hasSize(2);
    for (JsonNode e : evals) {
      assertThat(e.get("eval_loss").asDouble()).isCloseTo(Math.log(2), within(1e-6));
      assertThat(e.get("eval_rewards_margin").asDouble()).isCloseTo(0, within(1e-6));
      assertThat(e.has("eval_rewards_accuracy")).isTrue();
      assertThat(e.has("rewards_accuracy")).as("the step's own rewards stay beside them").isTrue();
    }
  }

  @Test
  void everyHeldOutPairCountsOnceInAnyLayout() throws Exception {
    Path one = dir.resolve("dp1"), two = dir.resolve("dp2");
    dpo().steps(2).runDir(one).fit();
    dpo().steps(2).dataParallel(2).runDir(two).fit();
    List<JsonNode> a = evalLines(one), b = evalLines(two);
    assertThat(a.get(1).get("eval_loss").asDouble()).as("the policy moved").isNotCloseTo(Math.log(2), within(1e-4));
    for (int i = 0; i < 2; i++) {
      for (String k : List.of("eval_loss", "eval_rewards_margin", "eval_rewards_accuracy")) {
        assertThat(b.get(i).get(k).asDouble()).as(k).isCloseTo(a.get(i).get(k).asDouble(), within(1e-5));
      }
    }
  }

  @Test
  void dpoEvaluatesPairsOnly() {
    assertThatThrownBy(() -> fixture.dpo(0.5, SEQ).set("train.evalEvery", 1).toSpec()).isInstanceOf(SpecException.class)
        .hasMessageStartingWith("train.evalEvery: ").hasMessageContaining("data.eval: preference:");
  }

  private static List<JsonNode> evalLines(Path run) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
      JsonNode n = MetricsJson.MAPPER.readTree(line);
      if (n.has("eval_loss")) out.add(n);
    }
    return out;
  }
}
