package dev.weft.train.grpo;

import dev.weft.data.Batches;
import dev.weft.models.CausalLm;
import dev.weft.util.Tensors;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Prompts and their completions as one training batch: row i is prompt + completion without its last token
 * ({@code tokens}, right-padded with 0), each position's target the next token where that is a completion token and
 * {@link Batches#IGNORE} elsewhere; {@code mask} is 1 on those targets. Right padding leaves every real position's
 * causal attention as it was.
 */
public record RolloutBatch(Tensor tokens, Tensor targets, Tensor mask) {
  public static RolloutBatch of(List<long[]> prompts, List<Rollouts.Completion> completions) {
    int n = completions.size(), width = 0;
    for (Rollouts.Completion c : completions) width = Math.max(width, prompts.get(c.prompt()).length + c.tokens().length - 1);
    long[] tokens = new long[n * width], targets = new long[n * width];
    java.util.Arrays.fill(targets, Batches.IGNORE);
    for (int i = 0; i < n; i++) {
      Rollouts.Completion c = completions.get(i);
      long[] p = prompts.get(c.prompt());
      for (int t = 0; t < p.length + c.tokens().length - 1; t++) {
        tokens[i * width + t] = t < p.length ? p[t] : c.tokens()[t - p.length];
        if (t + 1 >= p.length) targets[i * width + t] = c.tokens()[t + 1 - p.length];
      }
    }
    Tensor tg = Tensors.ofLongs(targets).view(n, width);
    return new RolloutBatch(Tensors.ofLongs(tokens).view(n, width), tg, tg.ne(new Scalar(Batches.IGNORE)).to(torch.ScalarType.Float));
  }

  /** Rows {@code [first, first + count)}. */
  public RolloutBatch rows(long first, long count) {
    return new RolloutBatch(tokens.narrow(0, first, count), targets.narrow(0, first, count), mask.narrow(0, first, count));
  }

  /**
   * log π of each target [B, T] under {@code model} (0 where there is none), in fp32, with gradients unless the caller
   * holds a {@code NoGradGuard}: of the distribution rollouts sample, the logits divided by {@code temperature} (as TRL
   * does), so the loss's gradient is the policy gradient of what was sampled, not of the untempered model.
   */
  public static Tensor tokenLogProbs(CausalLm model, Tensor tokens, Tensor targets, double temperature) {
    Tensor logits = model.logits(Rollouts.onModel(model, tokens), null).to(torch.ScalarType.Float);
    if (temperature != 1) logits = logits.div(new Scalar(temperature));
    Tensor logp = torch.log_softmax(logits, 2);
    Tensor y = Rollouts.onModel(model, targets);
    Tensor ignored = y.eq(new Scalar(Batches.IGNORE));
    Tensor picked = logp.gather(2, y.masked_fill(ignored, new Scalar(0)).unsqueeze(2)).squeeze(2);
    return picked.masked_fill(ignored, new Scalar(0.0));
  }
}
