package dev.weft.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.weft.Trainer;
import dev.weft.models.CausalLm;
import dev.weft.train.ModelBuilder;
import dev.weft.train.grpo.GroupSampler;
import dev.weft.train.grpo.Rollouts;
import dev.weft.util.Json;
import dev.weft.util.Tensors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Generator;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * GRPO's rollouts (issue 45): generated tokens per second of {@link Rollouts} — a step's prompts × G completions
 * batched over one KV cache — against one sequence at a time without a cache (each new token a forward of the whole
 * prefix), the two swapped per round; and the share of a GRPO step's time spent sampling, from a short run's
 * {@code rollout_ms} and {@code step_ms}.
 */
public final class GrpoBench {
  /** Prompts × group completions of maxNew tokens each (no stop: every row generates them all) on the tiny GPT. */
  public record Config(int prompts, int group, int maxNew, int rounds, int grpoSteps) {
    public static Config of(boolean quick) { return quick ? new Config(2, 4, 8, 1, 2) : new Config(8, 8, 24, 3, 6); }

    String label() { return prompts + " prompts × " + group + " completions × " + maxNew + " tokens, GPT tiny (4 layers h=128), fp32"; }
  }

  public record Result(Config config, double[] batched, double[] alone, double rolloutShare) {}

  private GrpoBench() {}

  public static Result measure(Config c) {
    CausalLm model = (CausalLm) ModelBuilder.whole(Trainer.model("gpt").size("tiny").data("arithmetic").seqLen(64).globalBatch(2).steps(1).toSpec());
    List<long[]> prompts = new ArrayList<>();
    for (int p = 0; p < c.prompts(); p++) prompts.add((";" + (10 + p) + "+" + (20 + p) + "=").chars().asLongStream().toArray());
    long[] ids = java.util.stream.LongStream.range(0, c.prompts()).toArray();
    GroupSampler sampler = new GroupSampler(1.0, 0, 1.0);
    long tokens = (long) c.prompts() * c.group() * c.maxNew();
    Path dir = StepBench.tempDir();
    try {
      // untimed, both ways once: the first forwards pay libtorch's and the JIT's start-up, which one round would charge
      // to whichever side ran first
      Rollouts.sample(model, prompts, ids, c.group(), sampler, 2, new long[0], 0);
      oneAtATime(model, prompts, c.group(), sampler, 2);
      var pairs = Interleaved.rounds(c.rounds(), dir, "batched", "alone", (batched, run) -> {
        long t0 = System.nanoTime();
        if (batched) Rollouts.sample(model, prompts, ids, c.group(), sampler, c.maxNew(), new long[0], 1);
        else oneAtATime(model, prompts, c.group(), sampler, c.maxNew());
        return tokens / ((System.nanoTime() - t0) / 1e9);
      });
      double[] b = pairs.first().stream().mapToDouble(Double::doubleValue).toArray();
      double[] a = pairs.second().stream().mapToDouble(Double::doubleValue).toArray();
      return new Result(c, b, a, rolloutShare(c, dir.resolve("grpo")));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } finally {
      StepBench.deleteTree(dir);
    }
  }

  /** Each completion alone, every new token a forward of its whole prefix (no cache). */
  static void oneAtATime(CausalLm model, List<long[]> prompts, int group, GroupSampler sampler, int maxNew) {
    Generator rng = torch.createCPUGenerator(1);
    try (NoGradGuard ng = new NoGradGuard()) {
      for (long[] p : prompts) {
        for (int g = 0; g < group; g++) {
          long[] seq = java.util.Arrays.copyOf(p, p.length + maxNew);
          for (int i = 0; i < maxNew; i++) {
            Tensor logits = model.logits(Tensors.ofLongs(java.util.Arrays.copyOf(seq, p.length + i)).view(1, -1), null);
            seq[p.length + i] = sampler.next(logits.select(1, logits.size(1) - 1), new Generator[] {rng}, 1)[0];
          }
        }
      }
    }
  }

  /** The median over a short GRPO run's steps of rollout_ms / step_ms (μ = 1: every step samples). */
  static double rolloutShare(Config c, Path run) throws java.io.IOException {
    Files.createDirectories(run);
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 64; i++) rows.add("{\"prompt\": \";" + (10 + i) + "+" + (20 + i % 7) + "=\", \"answer\": " + (30 + i + i % 7) + "}");
    Path prompts = Files.write(run.resolve("prompts.jsonl"), rows);
    Trainer.model("gpt").size("tiny").data(prompts.toString()).seqLen(64).grpo(c.group()).globalBatch(c.prompts() * c.group())
        .set("train.grpo.maxNewTokens", c.maxNew()).set("train.grpo.rewards", List.of(java.util.Map.of("name", "arithmetic")))
        .steps(c.grpoSteps()).warmup(0).lr(1e-4).runDir(run.resolve("run")).timeout(java.time.Duration.ofMinutes(20)).fit();
    List<Double> shares = new ArrayList<>();
    for (String line : Files.readAllLines(run.resolve("run/metrics.jsonl"))) {
      JsonNode n = Json.PLAIN.readTree(line);
      if (n.has("rollout_ms") && n.has("step_ms")) shares.add(n.get("rollout_ms").asDouble() / n.get("step_ms").asDouble());
    }
    return Stats.median(shares.stream().mapToDouble(Double::doubleValue).toArray());
  }

  public static List<BenchRow> rows(Result r) {
    return List.of(
        BenchRow.paired("grpo", "rollout tokens/s: batched over group and prompts with a KV cache vs one sequence at a time without"
            + " (swapped per round), " + r.config().label(), Stats.median(r.batched()), Stats.median(r.alone()), "tok/s",
            Stats.ratios(r.batched(), r.alone()), "≥ 5", ""),
        BenchRow.of("grpo", "share of a GRPO step in rollouts (median over steps; μ = 1), " + r.config().label(), r.rolloutShare(), 1.0,
            "fraction", "report", "the rest: scoring, the log-probability forward and backward, the optimizer"));
  }
}
