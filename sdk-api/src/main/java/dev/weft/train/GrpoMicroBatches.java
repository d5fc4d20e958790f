package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.Distributed;
import dev.weft.comm.ReduceOp;
import dev.weft.data.Batches;
import dev.weft.error.BadInputException;
import dev.weft.models.CausalLm;
import dev.weft.models.LanguageModel;
import dev.weft.models.lora.LoraLayers;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.precision.Autocast;
import dev.weft.spec.GrpoLossType;
import dev.weft.spec.GrpoSpec;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import dev.weft.tokenizer.Tokenizer;
import dev.weft.train.grpo.Advantages;
import dev.weft.train.grpo.GroupSampler;
import dev.weft.train.grpo.GrpoLoss;
import dev.weft.train.grpo.PromptSet;
import dev.weft.train.grpo.RolloutBatch;
import dev.weft.train.grpo.Rollouts;
import dev.weft.train.grpo.Rewards;
import dev.weft.util.Tensors;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A GRPO step on one rank. Every {@code mu} steps a rollout batch: this rank's share of the step's prompts (the global
 * batch counts completions, {@code groupSize} per prompt), their completions sampled with the policy
 * ({@link Rollouts}), scored by the {@link Rewards}, group-normalised into advantages; then each step the clipped
 * surrogate ({@link GrpoLoss}) over its micro-batches, each weighted by dp over the global batch's denominator (one
 * all-reduce of counts per rollout batch), so the step's loss is the global batch's in every dp layout. The batches the
 * loop hands in (its token data) are not used: the prompt file is the data.
 */
final class GrpoMicroBatches implements MicroBatches {
  private static final Logger log = LoggerFactory.getLogger(GrpoMicroBatches.class);

  /** Per-token log-probabilities of a frozen policy [B, T], without gradients. */
  interface TokenLogProbs { Tensor of(Tensor tokens, Tensor targets); }

  /** A rollout batch of this rank: its micro-batches, their advantages and old/reference log-probabilities, its normalizer. */
  private record Rollout(List<RolloutBatch> micro, List<Tensor> advantages, List<Tensor> old, List<Tensor> ref, LossNormalizer norm,
                         double[] sums) {
    /** Its tensors held past the step's PointerScope (one more reference each): μ &gt; 1 steps use them. */
    Rollout kept() {
      tensors().forEach(Tensor::retainReference);
      return this;
    }

    /** Drops what {@link #kept} held, when the next rollout batch replaces this one. */
    void release() { tensors().forEach(Tensor::releaseReference); }

    private List<Tensor> tensors() {
      List<Tensor> all = new ArrayList<>(advantages);
      all.addAll(old);
      all.addAll(ref);
      for (RolloutBatch b : micro) all.addAll(List.of(b.tokens(), b.targets(), b.mask()));
      return all;
    }
  }

  private final CausalLm model;
  private final ShardedOptimizer opt;
  private final String dtype;
  private final boolean cuda;
  private final GrpoSpec g;
  private final GrpoLoss.Params params;
  private final Rewards rewards;
  private final PromptSet prompts;
  private final Tokenizer tokenizer;
  private final long[] stop;
  private final Communicator dp;
  private final boolean leader; // rank 0 logs the step (tp ranks hold the same rollouts)
  private final int globalBatch;
  private final int microBatches;
  private final long seed;
  private final TokenLogProbs reference; // null when beta = 0
  /** The most likely token every time (top-k 1): held-out completions do not depend on a draw. */
  private static final GroupSampler GREEDY = new GroupSampler(1.0, 1, 1.0);
  private long step; // the loop's step that run() runs next (beginStep)
  private Rollout current;
  private final double[] stepSums = new double[3]; // this step's clipped tokens, KL sum, tokens
  private long rolloutNs, updateNs, generated;

  private GrpoMicroBatches(CausalLm model, ShardedOptimizer opt, TrainingSpec spec, Rewards rewards, PromptSet prompts, Tokenizer tokenizer,
                           long[] stop, Communicator dp, boolean leader, TokenLogProbs reference, boolean cuda) {
    this.model = model;
    this.opt = opt;
    this.dtype = spec.precision().dtype();
    this.cuda = cuda;
    this.g = spec.train().grpo();
    this.params = new GrpoLoss.Params(g.epsilon(), g.epsilonHigh(), g.beta(), GrpoLossType.of(g.lossType()));
    this.rewards = rewards;
    this.prompts = prompts;
    this.tokenizer = tokenizer;
    this.stop = stop;
    this.dp = dp;
    this.leader = leader;
    this.globalBatch = spec.train().globalBatch();
    this.microBatches = spec.parallel().microBatches();
    this.seed = spec.train().seed();
    this.reference = reference;
  }

  /** The GRPO passes of a run: its prompts, rewards, tokenizer and (β &gt; 0) reference. */
  static GrpoMicroBatches of(TrainingSpec spec, BuiltModel built, ShardedOptimizer opt, Distributed dist) {
    LanguageModel model = built.model();
    if (!(model instanceof CausalLm lm)) throw new SpecException("model", "train.objective=grpo samples with the model; this one gives no logits");
    Rewards rewards = Rewards.of(spec.train().grpo().rewards(), List.of());
    Tokenizer tok = tokenizer(spec);
    PromptSet prompts = PromptSet.open(Path.of(spec.data().source()), tok);
    long[] stop = LongStream.concat(Arrays.stream(lm.stopTokens()), spec.train().grpo().stop().stream().mapToLong(s -> {
      int[] ids = tok.encode(s);
      if (ids.length != 1) throw new SpecException("train.grpo.stop", "'" + s + "' is " + ids.length + " tokens; a stop text must be one token");
      return ids[0];
    })).distinct().toArray();
    TokenLogProbs ref = spec.train().grpo().beta() == 0 ? null : reference(spec, lm, built.adapters(), dist);
    if (model instanceof dev.weft.models.decoder.Decoder d) d.dropRouterLosses();
    return new GrpoMicroBatches(lm, opt, spec, rewards, prompts, tok, stop, dist.dp(), dist.rank() == 0, ref, dist.device().cuda());
  }

  /** The model's tokenizer ({@code model.pretrained}'s tokenizer.json), else bytes (the built-in byte-level models). */
  static Tokenizer tokenizer(TrainingSpec spec) {
    String dir = spec.model().pretrained();
    if (dir != null && !dir.isBlank() && Files.isRegularFile(Path.of(dir, "tokenizer.json"))) return Tokenizer.open(dir);
    return Tokenizer.open("bytes");
  }

  /** As DPO's: with fresh LoRA adapters, the policy with them off; otherwise a frozen copy of the starting model. */
  private static TokenLogProbs reference(TrainingSpec spec, CausalLm model, LoraLayers lora, Distributed dist) {
    if (lora != null && !spec.train().lora().hasAdapter()) {
      return (tokens, targets) -> {
        try (NoGradGuard ng = new NoGradGuard(); LoraLayers.Off off = lora.adaptersOff()) {
          return RolloutBatch.tokenLogProbs(model, tokens, targets, spec.train().grpo().temperature());
        }
      };
    }
    CausalLm copy = (CausalLm) ModelBuilder.frozenCopy(spec, dist.tp(), dist.cp());
    Placement.moveParameters(copy.parameters().list(), dist.device());
    return (tokens, targets) -> {
      try (NoGradGuard ng = new NoGradGuard()) {
        return RolloutBatch.tokenLogProbs(copy, tokens, targets, spec.train().grpo().temperature());
      }
    };
  }

  @Override
  public void beginStep(long step) { this.step = step; }

  /** GRPO divides by its rollout batch's count ({@link #run}): the loop's batches hold nothing to count. */
  @Override
  public LossNormalizer normalizer(List<Batches.Batch> host, Communicator dp, int cp) { return new LossNormalizer(1, dp.size()); }

  @Override
  public double run(List<Batches.Batch> ignored, LossNormalizer unused, double lossScale) {
    long r0 = System.nanoTime();
    if (current == null || (step - 1) % g.mu() == 0) {
      if (current != null) current.release();
      current = rollout((step - 1) / g.mu()).kept();
    }
    long u0 = System.nanoTime();
    rolloutNs = u0 - r0;
    Arrays.fill(stepSums, 0);
    Scalar weight = new Scalar(lossScale * current.norm().weight());
    double loss = 0;
    int n = current.micro().size();
    for (int m = 0; m < n; m++) {
      RolloutBatch b = current.micro().get(m);
      opt.beforeBackward(m, n);
      GrpoLoss l;
      try (Autocast ac = Autocast.of(dtype, cuda)) {
        Tensor logp = RolloutBatch.tokenLogProbs(model, b.tokens(), b.targets(), g.temperature());
        l = GrpoLoss.of(logp, g.mu() > 1 ? current.old().get(m) : null, reference == null ? null : current.ref().get(m),
            onDevice(current.advantages().get(m), logp), onDevice(b.mask(), logp), params);
      }
      loss += l.lossSum().item_double();
      stepSums[0] += l.clipped();
      stepSums[1] += l.klSum();
      stepSums[2] += l.tokens();
      l.lossSum().mul(weight).backward();
      opt.afterBackward(m, n);
    }
    updateNs = System.nanoTime() - u0;
    return current.norm().reported(loss);
  }

  private static Tensor onDevice(Tensor t, Tensor like) { return like.is_cpu() ? t : t.to(like.device(), t.scalar_type()); }

  /** Rollout batch {@code k} (0-based): this rank's prompts sampled, scored, normalised, cut into micro-batches. */
  private Rollout rollout(long k) {
    int group = g.groupSize(), perStep = globalBatch / group, perRank = perStep / dp.size();
    List<long[]> ids = new ArrayList<>();
    long[] which = new long[perRank];
    for (int j = 0; j < perRank; j++) {
      which[j] = promptAt(k * perStep + (long) dp.rank() * perRank + j);
      ids.add(prompts.ids().get((int) which[j]));
    }
    List<Rollouts.Completion> done;
    try (Autocast ac = Autocast.of(dtype, cuda)) {
      done = Rollouts.sample(model, ids, which, group, new GroupSampler(g.temperature(), g.topK(), g.topP()), g.maxNewTokens(), stop,
          seed * 1_000_003L + k);
    }
    double lengths = 0, stopped = 0;
    for (Rollouts.Completion c : done) {
      lengths += c.tokens().length;
      if (c.stopped()) stopped++;
    }
    generated = (long) lengths;
    Rewards.Scores scores = score(prompts, done, i -> (int) which[i]);
    double[] adv = Advantages.of(scores.total(), group, g.scaleRewards());
    RolloutBatch all = RolloutBatch.of(ids, done);
    int rows0 = done.size(), per = rows0 / microBatches;
    if (per * microBatches != rows0) {
      throw new BadInputException("train.globalBatch: " + rows0 + " completions per rank do not split into parallel.microBatches="
          + microBatches + "; make them divisible");
    }
    List<RolloutBatch> micro = new ArrayList<>();
    List<Tensor> advantages = new ArrayList<>(), old = new ArrayList<>(), ref = new ArrayList<>();
    for (int m = 0; m < microBatches; m++) {
      RolloutBatch b = all.rows((long) m * per, per);
      micro.add(b);
      advantages.add(Tensors.ofDoubles(Arrays.copyOfRange(adv, m * per, (m + 1) * per)));
      try (NoGradGuard ng = new NoGradGuard(); Autocast ac = Autocast.of(dtype, cuda)) {
        if (g.mu() > 1) old.add(RolloutBatch.tokenLogProbs(model, b.tokens(), b.targets(), g.temperature()));
        if (reference != null) ref.add(reference.of(b.tokens(), b.targets()));
      }
    }
    double tokens = all.mask().sum().item_double();
    double[] counts = {rows0, tokens};
    Tensor t = Tensors.ofDoubles(counts);
    if (dp.size() > 1) dp.allReduce(t, ReduceOp.SUM);
    double[] global = Tensors.toDoubles(t);
    GrpoLoss.Normalization norm = new GrpoLoss.Normalization(params.type(), (long) global[0], global[1], g.maxNewTokens());
    double[] sums = new double[5 + scores.each().length];
    for (int i = 0; i < rows0; i++) {
      sums[0] += scores.total()[i];
      sums[1] += scores.total()[i] * scores.total()[i];
      for (int f = 0; f < scores.each().length; f++) sums[5 + f] += scores.each()[f][i];
    }
    sums[2] = lengths;
    sums[3] = stopped;
    sums[4] = rows0;
    return new Rollout(micro, advantages, old, ref, new LossNormalizer((long) norm.denominator(), dp.size()), sums);
  }

  /**
   * {@code held}'s prompts {@code rank}, {@code rank + ranks}, … completed greedily (one completion each, the most likely
   * token at every step) and scored by the run's rewards: this rank's sums of the total reward, of each reward, of the
   * completion lengths, and the count of prompts — {@link GrpoEval}'s held-out accuracy for the verifiable rewards.
   */
  double[] greedySums(PromptSet held, int rank, int ranks) {
    int n = rewards.list().size();
    double[] sums = new double[3 + n];
    List<long[]> ids = new ArrayList<>();
    List<Integer> which = new ArrayList<>();
    for (int p = rank; p < held.size(); p += ranks) {
      ids.add(held.ids().get(p));
      which.add(p);
    }
    if (ids.isEmpty()) return sums;
    List<Rollouts.Completion> done;
    try (NoGradGuard ng = new NoGradGuard(); Autocast ac = Autocast.of(dtype, cuda)) {
      done = Rollouts.sample(model, ids, which.stream().mapToLong(Integer::longValue).toArray(), 1, GREEDY, g.maxNewTokens(), stop, 0);
    }
    for (Rollouts.Completion c : done) sums[1 + n] += c.tokens().length;
    Rewards.Scores scores = score(held, done, which::get);
    for (int i = 0; i < done.size(); i++) {
      sums[0] += scores.total()[i];
      for (int f = 0; f < n; f++) sums[1 + f] += scores.each()[f][i];
    }
    sums[2 + n] = done.size();
    return sums;
  }

  /** The names of the run's rewards, in the order of {@link #greedySums}. */
  List<String> rewardNames() { return rewards.list().stream().map(r -> r.name()).toList(); }

  /** The run's tokenizer (held-out prompts are read with it). */
  Tokenizer tokenizer() { return tokenizer; }

  /** {@code done}'s completions decoded and scored by the run's rewards; {@code promptOf} maps a completion's prompt to {@code set}'s row. */
  private Rewards.Scores score(PromptSet set, List<Rollouts.Completion> done, java.util.function.IntUnaryOperator promptOf) {
    List<String> promptTexts = new ArrayList<>(), texts = new ArrayList<>(), rowIds = new ArrayList<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Rollouts.Completion c : done) {
      int p = promptOf.applyAsInt(c.prompt());
      promptTexts.add(set.texts().get(p));
      rows.add(set.rows().get(p));
      rowIds.add(set.rowId(p));
      texts.add(tokenizer.decode(Arrays.stream(withoutStop(c)).mapToInt(Math::toIntExact).toArray()));
    }
    return rewards.score(promptTexts, texts, rows, rowIds);
  }

  private long[] withoutStop(Rollouts.Completion c) {
    return c.stopped() ? Arrays.copyOf(c.tokens(), c.tokens().length - 1) : c.tokens();
  }

  /** Prompt {@code i} of the run's order: the file shuffled once per pass by the seed. */
  private long promptAt(long i) {
    int n = prompts.size();
    long pass = i / n;
    int[] order = new int[n];
    for (int j = 0; j < n; j++) order[j] = j;
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + pass);
    for (int j = n - 1; j > 0; j--) {
      int s = r.nextInt(j + 1), tmp = order[j];
      order[j] = order[s];
      order[s] = tmp;
    }
    return order[(int) (i % n)];
  }

  /**
   * The last step's metrics over the global batch (one all-reduce over {@code dp}), TRL's names where they exist:
   * {@code reward}, {@code reward_std}, {@code rewards/NAME} (each reward's mean, unweighted), {@code completion_length},
   * {@code stopped_ratio}, {@code clip_ratio}, {@code kl} (β &gt; 0), and this rank's {@code rollout_ms},
   * {@code update_ms}, {@code gen_tokens_per_s} (of the rollout batch the step used).
   */
  @Override
  public Map<String, Double> objectiveMetrics(Communicator dp) { return metrics(leader); }

  Map<String, Double> metrics(boolean leader) {
    double[] local = new double[current.sums().length + 3];
    System.arraycopy(current.sums(), 0, local, 0, current.sums().length);
    System.arraycopy(stepSums, 0, local, current.sums().length, 3);
    Tensor t = Tensors.ofDoubles(local);
    if (dp.size() > 1) dp.allReduce(t, ReduceOp.SUM);
    double[] s = Tensors.toDoubles(t);
    int k = current.sums().length;
    double n = s[4];
    Map<String, Double> out = new LinkedHashMap<>();
    out.put("reward", s[0] / n);
    out.put("reward_std", n > 1 ? Math.sqrt(Math.max(0, (s[1] - s[0] * s[0] / n) / (n - 1))) : 0.0);
    for (int f = 0; f < rewards.list().size(); f++) out.put("rewards/" + rewards.list().get(f).name(), s[5 + f] / n);
    out.put("completion_length", s[2] / n);
    out.put("stopped_ratio", s[3] / n);
    out.put("clip_ratio", s[k] / Math.max(1, s[k + 2]));
    if (reference != null) out.put("kl", s[k + 1] / Math.max(1, s[k + 2]));
    out.put("rollout_ms", rolloutNs / 1e6);
    out.put("update_ms", updateNs / 1e6);
    if (rolloutNs > 0) out.put("gen_tokens_per_s", generated / (rolloutNs / 1e9));
    if (leader) {
      log.info("step {}: reward {} ± {}, completion length {}, clip ratio {}{}, rollout {} ms, update {} ms", step,
          String.format("%.4f", out.get("reward")), String.format("%.4f", out.get("reward_std")), String.format("%.1f", out.get("completion_length")),
          String.format("%.4f", out.get("clip_ratio")), reference == null ? "" : String.format(", kl %.5f", out.get("kl")),
          Math.round(rolloutNs / 1e6), Math.round(updateNs / 1e6));
    }
    return out;
  }
}
