package dev.weft.train;

import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.train.grpo.PromptSet;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GRPO on held-out prompts ({@code data.eval}: a JSONL prompt file like {@code data.source}): every prompt once, completed
 * greedily and scored by the run's rewards, data-parallel ranks taking prompts in turn. With a verifiable reward (exact
 * answer, arithmetic) {@code eval_reward} is the held-out accuracy; {@code eval_rewards/NAME} each reward's mean and
 * {@code eval_completion_length} the mean length. There is no held-out loss: GRPO's loss is not a quality measure.
 */
final class GrpoEval {
  private static final Logger log = LoggerFactory.getLogger(GrpoEval.class);
  private final PromptSet held;
  private final GrpoMicroBatches passes;
  private final Distributed dist;
  private Map<String, Double> last = Map.of();

  GrpoEval(String file, GrpoMicroBatches passes, Distributed dist) {
    this.held = PromptSet.open(Path.of(file), passes.tokenizer(), "data.eval");
    this.passes = passes;
    this.dist = dist;
    if (dist.rank() == 0) log.info("eval: {} held-out prompts each time from {}, completed greedily", held.size(), file);
  }

  /** Completes and scores the held-out prompts; {@link #metrics()} then holds the means. */
  void run() {
    List<String> names = passes.rewardNames();
    double[] s;
    try (PointerScope scope = new PointerScope()) {
      Tensor t = Tensors.ofDoubles(passes.greedySums(held, dist.coord().dp(), dist.dp().size()));
      if (dist.dp().size() > 1) dist.dp().allReduce(t, ReduceOp.SUM);
      s = Tensors.toDoubles(t);
    }
    int n = names.size();
    double count = Math.max(1, s[2 + n]);
    Map<String, Double> m = new LinkedHashMap<>();
    m.put("eval_reward", s[0] / count);
    for (int f = 0; f < n; f++) m.put("eval_rewards/" + names.get(f), s[1 + f] / count);
    m.put("eval_completion_length", s[1 + n] / count);
    last = m;
    if (dist.rank() == 0) {
      log.info(m.entrySet().stream().map(e -> String.format(Locale.ROOT, "%s=%.4f", e.getKey(), e.getValue()))
          .collect(Collectors.joining(" ", "", " over " + (long) s[2 + n] + " held-out prompts")));
    }
  }

  /** The last evaluation's means. */
  Map<String, Double> metrics() { return last; }
}
