package dev.weft.train.grpo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.checkpoint.CheckpointResolver;
import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.models.CausalLm;
import dev.weft.train.RunResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 45 item 5, the measurement (minutes of CPU; run with WEFT_GRPO_SAMPLE=1): the recipe of
 * samples/configs/grpo-arithmetic.yaml — SFT the tiny GPT on the arithmetic corpus, then GRPO with the arithmetic
 * checker — and the held-out exact-answer accuracy (greedy, 200 prompts not in the prompt file) before and after,
 * with the per-step training reward as the curve.
 */
@EnabledIfEnvironmentVariable(named = "WEFT_GRPO_SAMPLE", matches = "1")
class GrpoArithmeticSampleTest {
  @TempDir Path dir;

  @Test
  void heldOutAccuracyRisesByTwentyPoints() throws Exception {
    Path samples = Path.of("..", "samples").toAbsolutePath().normalize();
    int sftSteps = Integer.parseInt(System.getenv().getOrDefault("WEFT_GRPO_SFT_STEPS", "2000"));
    int grpoSteps = Integer.parseInt(System.getenv().getOrDefault("WEFT_GRPO_STEPS", "60"));
    long t0 = System.nanoTime();
    RunResult sft = Trainer.from(samples.resolve("configs/gpt-tiny.yaml")).dataParallel(1).steps(sftSteps)
        .checkpointDir(dir.resolve("ckpt")).checkpointEvery(sftSteps).runDir(dir.resolve("sft")).timeout(Duration.ofMinutes(40)).fit();
    Path weights = dir.resolve("model.safetensors");
    ConsolidatedWeights.write(CheckpointResolver.latest(dir.resolve("ckpt")).orElseThrow(), weights);
    double before = accuracy((CausalLm) sft.model());
    double sftS = (System.nanoTime() - t0) / 1e9;
    long t1 = System.nanoTime();
    RunResult rl = Trainer.from(samples.resolve("configs/grpo-arithmetic.yaml")).steps(grpoSteps)
        .data(samples.resolve("data/arithmetic-prompts.jsonl").toString()).set("data.eval", samples.resolve("data/arithmetic-heldout.jsonl").toString())
        .initWeights(weights).runDir(dir.resolve("grpo"))
        .timeout(Duration.ofMinutes(40)).fit();
    double grpoS = (System.nanoTime() - t1) / 1e9;
    double after = accuracy((CausalLm) rl.model());
    List<String> curve = new ArrayList<>();
    List<String> heldOut = new ArrayList<>();
    for (JsonNode n : GrpoTrainingTest.metrics(dir.resolve("grpo"))) {
      curve.add(String.format("%.3f", n.get("reward").asDouble()));
      if (n.has("eval_reward")) heldOut.add(n.get("step").asLong() + ":" + String.format("%.3f", n.get("eval_reward").asDouble()));
    }
    System.out.printf("GRPO sample: SFT %d steps %.0f s, held-out accuracy %.1f%% -> %.1f%% after %d GRPO steps in %.0f s; "
        + "training reward per step %s; the run's held-out eval_reward (200 sums of samples/data/arithmetic-heldout.jsonl) %s%n",
        sftSteps, sftS, 100 * before, 100 * after, grpoSteps, grpoS, curve, heldOut);
    assertThat(after - before).as("held-out accuracy rise").isGreaterThanOrEqualTo(0.20);
    assertThat(grpoS).as("GRPO wall seconds").isLessThan(600);
  }

  /** Greedy exact-answer accuracy on 200 prompts drawn from another seed than the prompt file's. */
  static double accuracy(CausalLm model) throws Exception {
    Random r = new Random(2026);
    List<long[]> prompts = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      String p = r.nextInt(100) + "+" + r.nextInt(100) + "=";
      texts.add(p);
      prompts.add(p.chars().asLongStream().toArray());
    }
    long[] ids = java.util.stream.LongStream.range(0, 200).toArray();
    List<Rollouts.Completion> out = Rollouts.sample(model, prompts, ids, 1, new GroupSampler(1.0, 1, 1.0), 4, new long[] {';'}, 0);
    RewardFunction check = BuiltinRewards.arithmetic();
    double right = 0;
    for (Rollouts.Completion c : out) {
      String text = new String(Arrays.stream(c.tokens()).mapToInt(Math::toIntExact).toArray(), 0, c.tokens().length);
      right += check.score(texts.get(c.prompt()), text, Map.of());
    }
    return right / out.size();
  }
}
