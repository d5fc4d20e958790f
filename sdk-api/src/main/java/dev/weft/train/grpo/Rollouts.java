package dev.weft.train.grpo;

import dev.weft.models.CausalLm;
import dev.weft.models.KvCache;
import dev.weft.util.Tensors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.pytorch.Generator;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Samples G completions of each prompt with the policy, batched over the group and the prompts over one KV cache per
 * batch: prompts of equal token length share a batch (the cache attends without a padding mask, so a batch's prompts
 * must line up), each of its prompt × G rows one new token per forward. A row ends at a stop token (kept, as
 * transformers does) or after {@code maxNewTokens}; the batch ends when every row has. Each prompt draws from its own
 * generator seeded by {@code (seed, promptId)}, so its completions are the same on any rank and in any batch.
 */
public final class Rollouts {
  /** One completion: its prompt's index in the call, its tokens (stop token included), whether a stop token ended it. */
  public record Completion(int prompt, long[] tokens, boolean stopped) {}

  private Rollouts() {}

  /**
   * @param promptIds stable ids of the prompts (their place in the dataset), which seed their generators
   * @return prompt-major: completions [p·G, (p+1)·G) are prompt p's
   */
  public static List<Completion> sample(CausalLm model, List<long[]> prompts, long[] promptIds, int group, GroupSampler sampler,
                                        int maxNewTokens, long[] stop, long seed) {
    Map<Integer, List<Integer>> byLength = new LinkedHashMap<>();
    for (int p = 0; p < prompts.size(); p++) {
      if (prompts.get(p).length == 0) throw new IllegalArgumentException("prompt " + promptIds[p] + " has no tokens");
      byLength.computeIfAbsent(prompts.get(p).length, k -> new ArrayList<>()).add(p);
    }
    Completion[] out = new Completion[prompts.size() * group];
    for (List<Integer> batch : byLength.values()) {
      List<long[]> rows = new ArrayList<>();
      Generator[] rngs = new Generator[batch.size()];
      for (int i = 0; i < batch.size(); i++) {
        int p = batch.get(i);
        rngs[i] = torch.createCPUGenerator(mix(seed, promptIds[p]) & Long.MAX_VALUE);
        for (int g = 0; g < group; g++) rows.add(prompts.get(p));
      }
      long[][] done = generate(model, rows, group, rngs, sampler, maxNewTokens, stop);
      for (int i = 0; i < batch.size(); i++) {
        for (int g = 0; g < group; g++) {
          long[] c = done[i * group + g];
          boolean stopped = c.length > 0 && contains(stop, c[c.length - 1]);
          out[batch.get(i) * group + g] = new Completion(batch.get(i), c, stopped);
        }
      }
    }
    return Arrays.asList(out);
  }

  /** The completions of equal-length {@code rows} [N], sampled together over one cache. */
  static long[][] generate(CausalLm model, List<long[]> rows, int group, Generator[] rngs, GroupSampler sampler, int maxNew, long[] stop) {
    int n = rows.size(), len = rows.get(0).length;
    long[] flat = new long[n * len];
    for (int r = 0; r < n; r++) System.arraycopy(rows.get(r), 0, flat, r * len, len);
    long[][] picked = new long[n][maxNew];
    int[] length = new int[n];
    Arrays.fill(length, -1); // -1: still going
    try (NoGradGuard ng = new NoGradGuard()) {
      KvCache cache = model.newCache();
      Tensor logits = model.logits(onModel(model, Tensors.ofLongs(flat).view(n, len)), cache);
      for (int i = 0; i < maxNew; i++) {
        long[] next = sampler.next(logits.select(1, logits.size(1) - 1), rngs, group);
        boolean running = false;
        for (int r = 0; r < n; r++) {
          if (length[r] >= 0) continue;
          picked[r][i] = next[r];
          if (contains(stop, next[r]) || i + 1 == maxNew) length[r] = i + 1;
          else running = true;
        }
        if (!running) break;
        logits = model.logits(onModel(model, Tensors.ofLongs(next).view(n, 1)), cache); // ended rows run on, unread
      }
    }
    long[][] out = new long[n][];
    for (int r = 0; r < n; r++) out[r] = Arrays.copyOf(picked[r], length[r]);
    return out;
  }

  private static boolean contains(long[] ids, long id) {
    for (long s : ids) if (s == id) return true;
    return false;
  }

  private static long mix(long seed, long id) {
    long z = seed * 0x9E3779B97F4A7C15L + id + 0x632BE59BD9B4E019L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static Tensor onModel(CausalLm model, Tensor ids) {
    Tensor w = model.parameters().list().get(0).tensor();
    return w.is_cpu() ? ids : ids.to(w.device(), ids.scalar_type());
  }
}
