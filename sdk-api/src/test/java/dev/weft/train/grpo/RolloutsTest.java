package dev.weft.train.grpo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.weft.Trainer;
import dev.weft.data.Batches;
import dev.weft.models.CausalLm;
import dev.weft.train.ModelBuilder;
import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;

/**
 * Issue 45 item 3: rollouts batched over groups and prompts with a KV cache sample what each prompt alone samples
 * (its generator is its own), stop at stop tokens, and the training batch's per-token log-probabilities are those of
 * the cached forward that sampled them.
 */
class RolloutsTest {
  static CausalLm model() {
    return (CausalLm) ModelBuilder.whole(Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32)
        .set("model.config.heads", 2).set("model.config.vocab", 256).data("arithmetic").seqLen(32).globalBatch(2).steps(1).seed(5).toSpec());
  }

  @Test
  void batchedRolloutsEqualEachPromptAloneAndStopAtStopTokens() {
    CausalLm m = model();
    List<long[]> prompts = List.of(new long[] {1, 2, 3}, new long[] {4, 5}, new long[] {6, 7, 8}, new long[] {9, 10, 11});
    long[] ids = {10, 11, 12, 13};
    GroupSampler s = new GroupSampler(1.0, 0, 1.0);
    long[] stop = java.util.stream.LongStream.range(0, 40).toArray(); // about one token in six stops
    List<Rollouts.Completion> all = Rollouts.sample(m, prompts, ids, 4, s, 12, stop, 99);
    assertThat(all).hasSize(16);
    for (int p = 0; p < prompts.size(); p++) {
      List<Rollouts.Completion> alone = Rollouts.sample(m, List.of(prompts.get(p)), new long[] {ids[p]}, 4, s, 12, stop, 99);
      for (int g = 0; g < 4; g++) {
        Rollouts.Completion c = all.get(p * 4 + g);
        assertThat(c.prompt()).isEqualTo(p);
        assertThat(c.tokens()).as("prompt %d completion %d", p, g).containsExactly(alone.get(g).tokens());
        assertThat(c.stopped()).isEqualTo(c.tokens()[c.tokens().length - 1] < 40);
        for (int t = 0; t + 1 < c.tokens().length; t++) assertThat(c.tokens()[t]).isGreaterThanOrEqualTo(40);
        if (!c.stopped()) assertThat(c.tokens()).hasSize(12);
      }
    }
    assertThat(all.stream().filter(Rollouts.Completion::stopped).count()).as("some stop early").isPositive();
    assertThat(all.stream().map(c -> List.of(java.util.Arrays.stream(c.tokens()).boxed().toArray())).distinct().count())
        .as("a group's completions differ").isGreaterThan(8);
  }

  @Test
  void topKOneIsGreedyAndTheBatchLogProbsAreTheCachedOnes() {
    CausalLm m = model();
    List<long[]> prompts = List.of(new long[] {1, 2, 3}, new long[] {4, 5});
    List<Rollouts.Completion> greedy = Rollouts.sample(m, prompts, new long[] {0, 1}, 2, new GroupSampler(1.0, 1, 1.0), 6, new long[0], 1);
    long[] expected = dev.weft.eval.Generation.generate(m, prompts.get(1), 6, dev.weft.eval.Generation.Sampling.GREEDY, new long[0]);
    assertThat(greedy.get(2).tokens()).containsExactly(expected);
    assertThat(greedy.get(3).tokens()).containsExactly(expected);

    for (double temperature : new double[] {1.0, 0.5}) sameAsCached(m, prompts, temperature);
  }

  /**
   * The loss's per-token log-probabilities at {@code temperature} are those of the tempered distribution the rollouts
   * sampled from (TRL divides the logits by the temperature in the loss too): the policy gradient of what was drawn.
   */
  private static void sameAsCached(CausalLm m, List<long[]> prompts, double temperature) {
    long[] stop = java.util.stream.LongStream.range(0, 60).toArray(); // rows end apart: the batch pads the early ones
    List<Rollouts.Completion> sampled = Rollouts.sample(m, prompts, new long[] {0, 1}, 4, new GroupSampler(temperature, 0, 1.0), 8, stop, 7);
    assertThat(sampled.stream().filter(c -> c.stopped() && c.tokens().length < 8).count()).as("some end early at a stop token").isPositive();
    RolloutBatch b = RolloutBatch.of(prompts, sampled);
    Tensor logp;
    try (NoGradGuard ng = new NoGradGuard()) {
      logp = RolloutBatch.tokenLogProbs(m, b.tokens(), b.targets(), temperature);
    }
    long[] targets = Tensors.toLongs(b.targets().contiguous().view(-1));
    double[] lp = Tensors.toDoubles(logp.to(org.bytedeco.pytorch.global.torch.ScalarType.Double).contiguous().view(-1));
    long width = b.tokens().size(1);
    for (int i = 0; i < sampled.size(); i++) {
      Rollouts.Completion c = sampled.get(i);
      long[] p = prompts.get(c.prompt());
      List<Double> cached = cachedLogProbs(m, p, c.tokens(), temperature);
      List<Double> fromBatch = new ArrayList<>();
      for (int t = 0; t < width; t++) if (targets[(int) (i * width + t)] != Batches.IGNORE) fromBatch.add(lp[(int) (i * width + t)]);
      assertThat(fromBatch).as("every completion token, the stop token included, and no padding").hasSize(c.tokens().length);
      for (int t = 0; t < fromBatch.size(); t++) {
        assertThat(fromBatch.get(t)).as("T=%s completion %d token %d", temperature, i, t).isCloseTo(cached.get(t), within(1e-5));
      }
    }
  }

  /** log π of each completion token as the one-row cached forward gives it, the logits divided by {@code temperature}. */
  private static List<Double> cachedLogProbs(CausalLm m, long[] prompt, long[] completion, double temperature) {
    List<Double> out = new ArrayList<>();
    try (NoGradGuard ng = new NoGradGuard()) {
      var cache = m.newCache();
      Tensor logits = m.logits(Tensors.ofLongs(prompt).view(1, -1), cache);
      for (long id : completion) {
        Tensor last = org.bytedeco.pytorch.global.torch.log_softmax(logits.select(1, logits.size(1) - 1).reshape(-1)
            .div(new org.bytedeco.pytorch.Scalar(temperature)), 0);
        out.add(last.select(0, id).item_double());
        logits = m.logits(Tensors.ofLongs(id).view(1, 1), cache);
      }
    }
    return out;
  }
}
