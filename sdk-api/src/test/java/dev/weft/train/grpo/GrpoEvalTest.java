package dev.weft.train.grpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.models.CausalLm;
import dev.weft.report.RunData;
import dev.weft.report.RunReport;
import dev.weft.spec.SpecValidator;
import dev.weft.train.RunResult;
import dev.weft.util.Json;
import dev.weft.util.Tensors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GRPO's held-out evaluation ({@code data.eval} prompts, {@code train.evalEvery}): each prompt completed greedily and
 * scored by the run's rewards, spread over dp ranks. The last step's {@code eval_reward} equals the trained model's
 * greedy completions scored here, decoded without a KV cache or batching (the whole sequence again for every token).
 */
class GrpoEvalTest {
  @TempDir Path dir;

  @Test
  void heldOutPromptsAreCompletedGreedilyAndScoredOverDataParallelRanks() throws Exception {
    Path prompts = GrpoTrainingTest.writePrompts(dir.resolve("prompts.jsonl"));
    Path held = dir.resolve("held.jsonl");
    Random r = new Random(77);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 11; i++) { // odd: dp ranks hold different counts
      int a = r.nextInt(50), b = r.nextInt(50);
      lines.add("{\"prompt\": \"" + a + "+" + b + "=\", \"answer\": " + (a + b) + "}");
    }
    Files.write(held, lines);
    RunResult run = GrpoTrainingTest.grpo().data(prompts.toString()).reward(GrpoTrainingTest.DIGITS, 0.25).dataParallel(2).microBatches(1)
        .set("data.eval", held.toString()).set("train.evalEvery", 2).steps(4).runDir(dir.resolve("run")).fit();
    List<JsonNode> steps = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("run/metrics.jsonl"))) steps.add(Json.PLAIN.readTree(line));
    steps.removeIf(n -> !n.has("reward"));
    assertThat(steps).hasSize(4);
    // every 2 steps and the last, and GRPO's after the first step too (the curve starts beside the starting policy)
    assertThat(steps.stream().map(n -> n.has("eval_reward")).toList()).containsExactly(true, true, false, true);
    JsonNode last = steps.get(3);

    double[] expected = greedyScores((CausalLm) run.model(), lines);
    assertThat(last.get("eval_rewards/arithmetic").asDouble()).isCloseTo(expected[0], within(1e-9));
    assertThat(last.get("eval_rewards/code").asDouble()).isCloseTo(expected[1], within(1e-9));
    assertThat(last.get("eval_reward").asDouble()).isCloseTo(expected[0] + 0.25 * expected[1], within(1e-9));
    assertThat(last.get("eval_completion_length").asDouble()).isCloseTo(expected[2], within(1e-9));
    assertThat(expected[1]).as("the digits reward is not zero, so the comparison can fail").isPositive();

    RunReport.Result report = RunReport.write(RunData.load(dir.resolve("run")), dir.resolve("report"));
    assertThat(report.plots()).contains("reward");
  }

  /** The means of the arithmetic reward, the digit count and the completion length over {@code lines}' prompts. */
  private static double[] greedyScores(CausalLm model, List<String> lines) throws Exception {
    RewardFunction arithmetic = BuiltinRewards.arithmetic();
    double[] sums = new double[3];
    for (String line : lines) {
      Map<String, Object> row = Json.PLAIN.readValue(line, Map.class);
      String prompt = (String) row.get("prompt");
      List<Long> ids = new ArrayList<>(prompt.chars().asLongStream().boxed().toList());
      StringBuilder completion = new StringBuilder();
      int generated = 0;
      for (int t = 0; t < 5; t++) {
        long next;
        try (PointerScope s = new PointerScope(); NoGradGuard ng = new NoGradGuard()) {
          Tensor tokens = Tensors.ofLongs(ids.stream().mapToLong(Long::longValue).toArray()).view(1, ids.size());
          Tensor logits = model.logits(tokens, model.newCache());
          next = logits.select(1, ids.size() - 1).argmax().item_long();
        }
        generated++;
        if (next == ';') break;
        completion.append((char) next);
        ids.add(next);
      }
      sums[0] += arithmetic.score(prompt, completion.toString(), row);
      sums[1] += GrpoTrainingTest.DIGITS.score(prompt, completion.toString(), row);
      sums[2] += generated;
    }
    for (int i = 0; i < 3; i++) sums[i] /= lines.size();
    return sums;
  }

  @Test
  void heldOutEvaluationNeedsAPromptFileAndChoosesNoBestByLoss() {
    assertThatThrownBy(() -> SpecValidator.validate(GrpoTrainingTest.grpo().data("prompts.jsonl").set("train.evalEvery", 2).set("data.validation", 0.1).toSpec()))
        .hasMessageContaining("train.evalEvery").hasMessageContaining("data.eval");
    assertThatThrownBy(() -> SpecValidator.validate(GrpoTrainingTest.grpo().data("prompts.jsonl").set("train.evalEvery", 2).set("data.eval", "held.jsonl")
        .set("checkpoint.saveBest", true).toSpec())).hasMessageContaining("checkpoint.saveBest");
  }
}
