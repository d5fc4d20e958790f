package dev.weft.train.grpo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.models.CausalLm;
import dev.weft.train.RunResult;
import dev.weft.util.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 45, the sample's measurement (minutes of CPU; opt-in, not in CI: WEFT_GRPO_SAMPLE=1): exactly the recipe of
 * samples/configs/grpo-arithmetic.yaml's header — step 1, samples/configs/grpo-arithmetic-sft.yaml (the tiny GPT SFT'd on
 * the built-in a+b=c corpus), step 2, samples/configs/grpo-arithmetic.yaml from those weights — and the held-out
 * exact-answer accuracy (greedy, the 200 sums of samples/data/arithmetic-heldout.jsonl, none in the prompt file) before
 * and after, with the run's held-out curve (eval_reward every train.evalEvery steps, with the seconds so far) and the
 * load average. WEFT_GRPO_SFT_STEPS / WEFT_GRPO_STEPS override the two yamls' step counts for experiments only.
 */
@EnabledIfEnvironmentVariable(named = "WEFT_GRPO_SAMPLE", matches = "1")
class GrpoArithmeticSampleTest {
  @TempDir Path dir;

  @Test
  void heldOutAccuracyRisesByTwentyPointsWithinTenMinutes() throws Exception {
    Path samples = Path.of("..", "samples").toAbsolutePath().normalize();
    String load0 = loadAverage();
    Trainer sftRecipe = Trainer.from(samples.resolve("configs/grpo-arithmetic-sft.yaml"));
    String sftSteps = System.getenv("WEFT_GRPO_SFT_STEPS");
    if (sftSteps != null) sftRecipe = sftRecipe.steps(Integer.parseInt(sftSteps)).checkpointEvery(Integer.parseInt(sftSteps));
    long t0 = System.nanoTime();
    RunResult sft = sftRecipe.checkpointDir(dir.resolve("ckpt")).runDir(dir.resolve("sft")).timeout(Duration.ofMinutes(60)).fit();
    double sftS = (System.nanoTime() - t0) / 1e9;
    Path weights = dir.resolve("model.safetensors");
    ConsolidatedWeights.write(CheckpointResolver.latest(dir.resolve("ckpt")).orElseThrow(), weights);
    PromptSet held = PromptSet.open(samples.resolve("data/arithmetic-heldout.jsonl"), dev.weft.tokenizer.Tokenizer.open("bytes"), "data.eval");
    assertThat(disjoint(held, PromptSet.open(samples.resolve("data/arithmetic-prompts.jsonl"), dev.weft.tokenizer.Tokenizer.open("bytes"))))
        .as("held-out sums not among the training prompts").isTrue();
    double[] start = accuracy((CausalLm) sft.model(), held);

    Trainer rlRecipe = Trainer.from(samples.resolve("configs/grpo-arithmetic.yaml"))
        .data(samples.resolve("data/arithmetic-prompts.jsonl").toString()).evalData(samples.resolve("data/arithmetic-heldout.jsonl").toString());
    String grpoSteps = System.getenv("WEFT_GRPO_STEPS");
    if (grpoSteps != null) rlRecipe = rlRecipe.steps(Integer.parseInt(grpoSteps));
    String load1 = loadAverage();
    long t1 = System.nanoTime();
    RunResult rl = rlRecipe.initWeights(weights).runDir(dir.resolve("grpo")).timeout(Duration.ofMinutes(60)).fit();
    double grpoS = (System.nanoTime() - t1) / 1e9;
    double[] end = accuracy((CausalLm) rl.model(), held);

    List<String> curve = new ArrayList<>();
    double ms = 0;
    for (String line : Files.readAllLines(dir.resolve("grpo/metrics.jsonl"))) {
      JsonNode n = Json.PLAIN.readTree(line);
      if (n.has("step_ms")) ms += n.get("step_ms").asDouble();
      if (n.has("eval_reward")) curve.add(String.format("%d:%.1f%%@%.0fs", n.get("step").asLong(), 100 * n.get("eval_reward").asDouble(), ms / 1e3));
    }
    org.slf4j.LoggerFactory.getLogger(GrpoArithmeticSampleTest.class).info(String.format("GRPO sample: SFT %s in %.0f s (load %s): held-out greedy %.1f%%, sampled at T=1 %.1f%%, pass@8 %.1f%%; "
        + "GRPO %s in %.0f s (load %s -> %s): held-out greedy %.1f%%, sampled %.1f%%, pass@8 %.1f%%; held-out curve (step:accuracy@train seconds) %s",
        sftSteps == null ? "as the yaml" : sftSteps + " steps", sftS, load0, 100 * start[0], 100 * start[1], 100 * start[2],
        grpoSteps == null ? "as the yaml" : grpoSteps + " steps", grpoS, load1, loadAverage(), 100 * end[0], 100 * end[1], 100 * end[2], curve));
    assertThat(end[0] - start[0]).as("held-out accuracy rise").isGreaterThanOrEqualTo(0.20);
    assertThat(grpoS).as("GRPO wall seconds").isLessThan(600);
  }

  /**
   * The held-out exact-answer accuracy of {@code model} on {@code held}: greedy (as the run's eval_reward), sampled at
   * temperature 1 (8 per sum, the mean) and pass@8 (a sum with any of its 8 right), at the sample's 4 new tokens and stop ';'.
   */
  static double[] accuracy(CausalLm model, PromptSet held) throws Exception {
    long[] ids = java.util.stream.LongStream.range(0, held.size()).toArray();
    RewardFunction check = BuiltinRewards.arithmetic();
    List<Rollouts.Completion> greedy = Rollouts.sample(model, held.ids(), ids, 1, new GroupSampler(1.0, 1, 1.0), 4, new long[] {';'}, 0);
    double right = 0;
    for (Rollouts.Completion c : greedy) right += check.score(held.texts().get(c.prompt()), text(c), Map.of());
    List<Rollouts.Completion> sampled = Rollouts.sample(model, held.ids(), ids, 8, new GroupSampler(1.0, 0, 1.0), 4, new long[] {';'}, 1);
    double mean = 0, any = 0;
    for (int p = 0; p < held.size(); p++) {
      double hits = 0;
      for (int k = 0; k < 8; k++) hits += check.score(held.texts().get(p), text(sampled.get(p * 8 + k)), Map.of());
      mean += hits / 8;
      if (hits > 0) any++;
    }
    return new double[] {right / held.size(), mean / held.size(), any / held.size()};
  }

  private static String text(Rollouts.Completion c) {
    return new String(Arrays.stream(c.tokens()).mapToInt(Math::toIntExact).toArray(), 0, c.tokens().length);
  }

  private static boolean disjoint(PromptSet held, PromptSet train) {
    Set<String> seen = new HashSet<>(train.texts());
    return held.texts().stream().noneMatch(seen::contains);
  }

  private static String loadAverage() throws Exception {
    return String.join(" ", Arrays.copyOf(Files.readString(Path.of("/proc/loadavg")).trim().split(" "), 3));
  }
}
