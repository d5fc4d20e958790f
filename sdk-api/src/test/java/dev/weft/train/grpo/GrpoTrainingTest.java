package dev.weft.train.grpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.spec.SpecValidator;
import dev.weft.train.RunResult;
import dev.weft.util.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 45 item 4: {@code train.objective: grpo} on a byte-level model with arithmetic prompts — dp=2 equals dp=1 per
 * step (rollouts included), μ &gt; 1 reuses a rollout batch, LoRA's reference is the base (KL 0 at step 1), the metrics
 * reach metrics.jsonl, and what GRPO cannot run yet is refused in one line.
 */
class GrpoTrainingTest {
  @TempDir static Path dir;
  static Path prompts;

  @BeforeAll
  static void data() throws Exception {
    prompts = writePrompts(dir.resolve("prompts.jsonl"));
  }

  /** 48 rows "a+b=" with their answer. */
  static Path writePrompts(Path file) throws Exception {
    Random r = new Random(3);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 48; i++) {
      int a = r.nextInt(50), b = r.nextInt(50);
      lines.add("{\"prompt\": \"" + a + "+" + b + "=\", \"answer\": " + (a + b) + "}");
    }
    return Files.write(file, lines);
  }

  static Trainer grpo() {
    return grpo(Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2));
  }

  static Trainer grpo(Trainer model) {
    return model.data(String.valueOf(prompts)).seqLen(32).grpo(4).globalBatch(16).steps(3).warmup(0).lr(3e-2).seed(9)
        .set("train.grpo.maxNewTokens", 5).set("train.grpo.stop", List.of(";"))
        .set("train.grpo.rewards", List.of(java.util.Map.of("name", "arithmetic"))).timeout(Duration.ofMinutes(10));
  }

  static final RewardFunction DIGITS = (p, c, row) -> c.chars().filter(Character::isDigit).count(); // varies within a group from step 1
  private static RunResult oneRank;

  /** The one-rank run the layouts are compared with (μ = 2: step 2 reuses step 1's rollouts). */
  static synchronized RunResult oneRank() {
    if (oneRank == null) oneRank = grpo().set("train.grpo.mu", 2).reward(DIGITS, 0.25).runDir(dir.resolve("dp1")).fit();
    return oneRank;
  }

  @Test
  void dataParallelEqualsOneRankPerStepRolloutsIncluded() throws Exception {
    RunResult one = oneRank();
    RunResult two = grpo().set("train.grpo.mu", 2).reward(DIGITS, 0.25).dataParallel(2).microBatches(1).runDir(dir.resolve("dp2")).fit();
    assertThat(one.losses()).hasSize(3).allMatch(Double::isFinite).anyMatch(l -> Math.abs(l) > 1e-3);
    sameSteps(one, two, "dp2");
    List<JsonNode> m1 = metrics(dir.resolve("dp1"));
    for (int s = 0; s < 3; s++) {
      assertThat(m1.get(s).get("rollout_ms").asDouble()).isPositive();
      assertThat(m1.get(s).get("update_ms").asDouble()).isPositive();
    }
    // μ = 2: step 2 reuses step 1's rollouts (same rewards) with a moved policy, so the ratio leaves 1
    assertThat(m1.get(1).get("reward").asDouble()).isEqualTo(m1.get(0).get("reward").asDouble());
    assertThat(m1.get(0).get("clip_ratio").asDouble()).isZero();
    assertThat(m1.get(0).get("reward_std").asDouble()).isPositive();
    assertThat(m1.get(0).get("completion_length").asDouble()).isBetween(1.0, 5.0);
  }

  /** tp = 2: both ranks sample from the gathered full-vocabulary logits with the same generators, so the same tokens. */
  @Test
  void tensorParallelEqualsOneRankPerStepRolloutsIncluded() throws Exception {
    RunResult one = oneRank();
    RunResult tp = grpo().set("train.grpo.mu", 2).reward(DIGITS, 0.25).tensorParallel(2).runDir(dir.resolve("tp2")).fit();
    assertThat(tp.summary().mesh()).containsEntry("tp", 2);
    sameSteps(one, tp, "tp2");
  }

  /** Losses and the rollouts' metrics of {@code run} (in dir/name) equal the one-rank run's at every step. */
  private static void sameSteps(RunResult one, RunResult run, String name) throws Exception {
    for (int s = 0; s < 3; s++) assertThat(run.losses().get(s)).as("%s step %d", name, s + 1).isCloseTo(one.losses().get(s), within(1e-4));
    List<JsonNode> m1 = metrics(dir.resolve("dp1")), m2 = metrics(dir.resolve(name));
    for (int s = 0; s < 3; s++) {
      for (String k : List.of("reward", "reward_std", "rewards/arithmetic", "rewards/code", "completion_length", "clip_ratio")) {
        assertThat(m2.get(s).get(k).asDouble()).as("%s: %s at step %d", name, k, s + 1).isCloseTo(m1.get(s).get(k).asDouble(), within(1e-4));
      }
    }
  }

  @Test
  void loraReferenceIsTheBaseAndJavaRewardsComposeWithWeights() throws Exception {
    RunResult r = grpo(Trainer.model("llama").set("model.config.num_hidden_layers", 2)).lora(4, 8).set("train.grpo.beta", 0.04).reward((p, c, row) -> c.length() <= 3 ? 1 : 0, 0.5)
        .runDir(dir.resolve("lora")).fit();
    List<JsonNode> m = metrics(dir.resolve("lora"));
    assertThat(m.get(0).get("kl").asDouble()).as("adapters start at zero: the policy is the reference").isCloseTo(0, within(1e-9));
    assertThat(m.get(2).get("kl").asDouble()).as("the adapters moved").isPositive();
    assertThat(m.get(0).has("rewards/code")).isTrue();
    double expected = m.get(0).get("rewards/arithmetic").asDouble() + 0.5 * m.get(0).get("rewards/code").asDouble();
    assertThat(m.get(0).get("reward").asDouble()).isCloseTo(expected, within(1e-9));
    assertThat(r.losses()).allMatch(Double::isFinite);
  }

  @Test
  void whatGrpoCannotRunYetIsRefusedInOneLine() {
    assertThatThrownBy(() -> SpecValidator.validate(grpo().pipeline(2).toSpec())).hasMessageContaining("parallel.pp");
    assertThatThrownBy(() -> SpecValidator.validate(grpo().contextParallel(2).toSpec())).hasMessageContaining("parallel.cp");
    assertThatThrownBy(() -> SpecValidator.validate(grpo().tensorParallel(2).set("parallel.sequenceParallel", true).toSpec()))
        .hasMessageContaining("parallel.sequenceParallel");
    assertThatThrownBy(() -> SpecValidator.validate(grpo().data("arithmetic").toSpec())).hasMessageContaining("data.source")
        .hasMessageContaining(".jsonl");
    assertThatThrownBy(() -> SpecValidator.validate(grpo().globalBatch(6).toSpec())).hasMessageContaining("train.globalBatch");
    assertThatThrownBy(() -> SpecValidator.validate(grpo().grpo(1).toSpec())).hasMessageContaining("train.grpo.groupSize");
    assertThatThrownBy(() -> SpecValidator.validate(grpo().set("train.grpo.lossType", "ppo").toSpec()))
        .hasMessageContaining("grpo, bnpo, dapo, dr_grpo");
    assertThatThrownBy(() -> SpecValidator.validate(grpo().set("train.grpo.epsilonHigh", 0.1).toSpec()))
        .hasMessageContaining("train.grpo.epsilonHigh");
  }

  static List<JsonNode> metrics(Path runDir) throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(runDir.resolve("metrics.jsonl"))) {
      JsonNode n = Json.PLAIN.readTree(line);
      if (n.has("reward")) out.add(n);
    }
    return out;
  }
}
