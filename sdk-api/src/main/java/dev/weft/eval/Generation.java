package dev.weft.eval;

import dev.weft.models.CausalLm;
import dev.weft.models.KvCache;
import dev.weft.util.Tensors;
import java.util.Arrays;
import org.bytedeco.pytorch.Generator;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Continues a prompt token by token over a KV cache: the prompt runs once, then each new token is
 * one forward of length 1. Greedy (argmax) unless a temperature is given; then top-k and top-p
 * (nucleus) filter the distribution before sampling from a generator seeded by {@code seed}.
 */
public final class Generation {
  /** How to pick each token. {@code temperature == 0}: greedy; {@code topK == 0} and {@code topP == 1}: no filtering. */
  public record Sampling(double temperature, int topK, double topP, long seed) {
    public static final Sampling GREEDY = new Sampling(0, 0, 1, 0);

    public Sampling {
      if (!(temperature >= 0) || Double.isInfinite(temperature)) throw new IllegalArgumentException("--temperature must be 0 (greedy) or positive, not " + temperature);
      if (topK < 0) throw new IllegalArgumentException("--top-k must be 0 (off) or positive, not " + topK);
      if (!(topP > 0 && topP <= 1)) throw new IllegalArgumentException("--top-p must be in (0, 1], not " + topP);
    }
  }

  private Generation() {}

  /**
   * Up to {@code newTokens} ids that follow {@code prompt}, ending early (stop token included, as
   * transformers does) at one of the model's {@link CausalLm#stopTokens}.
   */
  public static long[] generate(CausalLm model, long[] prompt, int newTokens, Sampling sampling) {
    return generate(model, prompt, newTokens, sampling, model.stopTokens());
  }

  /** As {@link #generate(CausalLm, long[], int, Sampling)}, stopping at {@code stopTokens} (empty: never). */
  public static long[] generate(CausalLm model, long[] prompt, int newTokens, Sampling sampling, long[] stopTokens) {
    if (prompt.length == 0) throw new IllegalArgumentException("the prompt is empty; give at least one token");
    Generator rng = torch.createCPUGenerator(sampling.seed() & Long.MAX_VALUE);
    long[] out = new long[newTokens];
    try (NoGradGuard ng = new NoGradGuard()) {
      KvCache cache = model.newCache();
      Tensor logits = model.logits(onModel(model, Tensors.ofLongs(prompt).view(1, prompt.length)), cache);
      for (int i = 0; i < newTokens; i++) {
        out[i] = pick(logits.select(1, logits.size(1) - 1).reshape(-1), sampling, rng);
        long id = out[i];
        if (Arrays.stream(stopTokens).anyMatch(s -> s == id)) return Arrays.copyOf(out, i + 1);
        if (i + 1 < newTokens) logits = model.logits(onModel(model, Tensors.ofLongs(out[i]).view(1, 1)), cache);
      }
    }
    return out;
  }

  /** {@code ids} on the device the model's weights are on (a model on CUDA takes CUDA ids). */
  private static Tensor onModel(CausalLm model, Tensor ids) {
    Tensor w = model.parameters().list().get(0).tensor();
    return w.is_cpu() ? ids : ids.to(w.device(), ids.scalar_type());
  }

  /** One token from the last position's logits [vocab]. */
  static long pick(Tensor logits, Sampling s, Generator rng) {
    if (s.temperature() == 0) return torch.argmax(logits).item_long();
    Tensor z = Tensors.onHost(logits).to(torch.ScalarType.Float).div(new Scalar(s.temperature())); // the generator is a CPU one
    if (s.topK() > 0 && s.topK() < z.size(0)) {
      Tensor kth = z.topk(s.topK()).get0().min();
      z = z.masked_fill(z.lt(kth), new Scalar(Double.NEGATIVE_INFINITY));
    }
    if (s.topP() < 1) {
      var sorted = z.sort(0, true);
      Tensor probs = torch.softmax(sorted.get0(), 0);
      Tensor before = torch.cumsum(probs, 0).sub(probs); // mass of the tokens ranked above each one
      Tensor dropSorted = before.ge(new Scalar(s.topP()));
      Tensor drop = torch.zeros_like(dropSorted).scatter(0, sorted.get1(), dropSorted);
      z = z.masked_fill(drop, new Scalar(Double.NEGATIVE_INFINITY));
    }
    return torch.multinomial(torch.softmax(z, 0), 1, false, new GeneratorOptional(rng)).item_long();
  }

  static String format(long[] ids) {
    return String.join(",", Arrays.stream(ids).mapToObj(Long::toString).toList());
  }
}
