package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.comm.DeviceMesh;
import dev.weft.comm.Distributed;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.data.Batches;
import dev.weft.data.DistributedSampler;
import dev.weft.data.TokenSource;
import dev.weft.eval.Evaluation;
import dev.weft.launch.ThreadedRun;
import dev.weft.models.CausalLm;
import dev.weft.models.LanguageModel;
import dev.weft.models.Parameters.Param;
import dev.weft.models.Weights;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bytedeco.pytorch.NoGradGuard;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * With targets masked ({@link Batches#IGNORE}) very unequally across micro-batches, one step's gradients (the
 * change of every parameter after one SGD step at lr 1) and its loss are the same however the global batch is split
 * into micro-batches and data-parallel ranks, vocabulary-parallel or pipelined: the loss is the global batch's sum
 * over its global count of targets, divided once. The loss also equals masked cross-entropy computed from the logits
 * with plain libtorch operations.
 */
class MaskedLossNormalizationTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final int GLOBAL = 8, SEQ = 16;
  private static Tensor tokens, targets;
  private static Step reference;

  /** A step's outcome: the reported loss and every parameter's change (its gradient, at lr 1). */
  record Step(double loss, Map<String, Tensor> grads) {}

  static Trainer small() {
    return Trainer.model("gpt").set("model.config.layers", 4).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(SEQ).globalBatch(GLOBAL).microBatches(1).steps(1).warmup(0).lr(1.0).optimizer("sgd")
        .set("train.weightDecay", 0.0).seed(23);
  }

  @BeforeAll
  static void maskedBatch() {
    long vocab = ((CausalLm) ModelBuilder.whole(small().toSpec())).vocabSize();
    Random r = new Random(5);
    long[] in = new long[GLOBAL * SEQ], tg = new long[GLOBAL * SEQ];
    for (int s = 0; s < GLOBAL; s++) {
      double kept = s == 2 ? 0 : s == 5 ? 1 : s / 10.0; // sample 2 has no target, sample 5 only targets
      for (int t = 0; t < SEQ; t++) {
        in[s * SEQ + t] = r.nextInt((int) vocab);
        tg[s * SEQ + t] = r.nextDouble() < kept ? r.nextInt((int) vocab) : Batches.IGNORE;
      }
    }
    tokens = Tensors.ofLongs(in).view(GLOBAL, SEQ);
    targets = Tensors.ofLongs(tg).view(GLOBAL, SEQ);
    reference = step(small().toSpec());
  }

  @ParameterizedTest(name = "dp={0} micro={1} tp={2} pp={3}")
  @CsvSource({"1,2,1,1", "1,4,1,1", "2,1,1,1", "2,2,1,1", "2,4,1,1", "1,2,2,1", "1,4,1,2", "2,2,2,1"})
  void everySplitGivesTheSameGradients(int dp, int micro, int tp, int pp) {
    Step got = step(small().dataParallel(dp).microBatches(micro).tensorParallel(tp).pipeline(pp).toSpec());
    assertThat(got.loss()).isCloseTo(reference.loss(), org.assertj.core.api.Assertions.within(1e-6 * reference.loss()));
    assertThat(got.grads().keySet()).isEqualTo(reference.grads().keySet());
    reference.grads().forEach((name, g) ->
        assertThat(got.grads().get(name).sub(g).abs().max().item_double()).as(name).isLessThanOrEqualTo(1e-6));
  }

  @Test
  void theLossIsMaskedCrossEntropyOfTheLogits() {
    LanguageModel m = ModelBuilder.whole(small().toSpec());
    double expected;
    try (NoGradGuard ng = new NoGradGuard()) {
      Tensor logp = torch.log_softmax(((CausalLm) m).logits(tokens, null), -1, new org.bytedeco.pytorch.ScalarTypeOptional());
      Tensor mask = targets.ne(new Scalar(Batches.IGNORE));
      Tensor safe = targets.mul(mask.to(ScalarType.Long)); // any id where masked: zeroed below
      Tensor picked = logp.gather(2, safe.unsqueeze(2)).squeeze(2).neg().mul(mask.to(ScalarType.Float));
      expected = picked.sum().item_double() / mask.sum().item_double();
      double unmasked = logp.gather(2, safe.unsqueeze(2)).squeeze(2).neg().mean().item_double();
      assertThat(Math.abs(unmasked - expected)).as("the masks change the loss").isGreaterThan(1e-3);
      assertThat(m.loss(tokens, targets).item_double()).isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-5));
      assertThat(m.lossSum(tokens.narrow(0, 2, 1), targets.narrow(0, 2, 1)).item_double()).as("no target").isZero();
    }
    assertThat(reference.loss()).isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-5));
    Evaluation.Result eval = Evaluation.run(m, 2, i -> new Batches.Batch(tokens.narrow(0, 4 * i, 4), targets.narrow(0, 4 * i, 4)));
    assertThat(eval.loss()).isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-5));
    assertThat(eval.tokens()).isEqualTo(Tensors.toLongs(targets.ne(new Scalar(Batches.IGNORE)).sum())[0]);
    assertThatThrownBy(() -> Evaluation.run(m, 1, i -> new Batches.Batch(tokens.narrow(0, 2, 1), targets.narrow(0, 2, 1))))
        .hasMessageContaining("no token of the data is a target");
  }

  /** {@code weft eval} over a token stream with target flags: the masked mean of the windows' targets. */
  @Test
  void evaluationOverFlaggedTokensIsTheMaskedMean(@TempDir Path dir) throws Exception {
    LanguageModel m = ModelBuilder.whole(small().toSpec());
    int windows = 3, n = windows * SEQ + 1;
    Random r = new Random(11);
    int[] ids = new int[n], flags = new int[n];
    for (int i = 0; i < n; i++) {
      ids[i] = r.nextInt(((CausalLm) m).vocabSize());
      flags[i] = i < SEQ + 1 ? 0 : r.nextInt(3) == 0 ? 1 : 0; // the first window has no target at all
    }
    double sum = 0;
    long count = 0;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (int w = 0; w < windows; w++) {
        long[] in = new long[SEQ];
        for (int t = 0; t < SEQ; t++) in[t] = ids[w * SEQ + t];
        Tensor logp = torch.log_softmax(((CausalLm) m).logits(Tensors.ofLongs(in).view(1, SEQ), null), -1,
            new org.bytedeco.pytorch.ScalarTypeOptional());
        float[] lp = Tensors.toFloats(logp.contiguous());
        long vocab = logp.size(2);
        for (int t = 0; t < SEQ; t++) {
          int next = w * SEQ + t + 1;
          if (flags[next] == 0) continue;
          sum -= lp[(int) (t * vocab + ids[next])];
          count++;
        }
      }
    }
    Evaluation.Result got = Evaluation.run(m, array(ids), array(flags), SEQ);
    assertThat(got.tokens()).isEqualTo(count);
    assertThat(got.loss()).isCloseTo(sum / count, org.assertj.core.api.Assertions.within(1e-5));
    assertThat(Evaluation.run(m, array(ids), SEQ).tokens()).isEqualTo((long) windows * SEQ);
    boolean[] targets = new boolean[n];
    for (int i = 0; i < n; i++) targets[i] = flags[i] != 0;
    try (dev.weft.data.ShardWriter w = new dev.weft.data.ShardWriter(dir, ((CausalLm) m).vocabSize(), "test", -1, 1 << 20, true)) {
      w.append(ids, targets);
      w.finish();
    }
    dev.weft.data.ShardIndex shards = dev.weft.data.ShardIndex.read(dir); // what weft eval reads from a chat shard directory
    Evaluation.Result fromShards = Evaluation.run(m, shards.open(dir), shards.openFlags(dir), SEQ);
    assertThat(fromShards.tokens()).isEqualTo(count);
    assertThat(fromShards.loss()).isCloseTo(sum / count, org.assertj.core.api.Assertions.within(1e-5));
  }

  private static dev.weft.data.TokenArray array(int[] values) {
    return new dev.weft.data.TokenArray() {
      @Override public long size() { return values.length; }
      @Override public int get(long i) { return values[(int) i]; }
    };
  }

  /** Through the whole training loop on flagged data: the layouts train step for step alike. */
  @Test
  void trainingOnFlaggedDataMatchesAcrossLayouts(@TempDir Path dir) {
    RunResult one = flagged("0-0").set("train.evalEvery", 3).set("data.validation", 0.1).runDir(dir.resolve("one")).fit();
    RunResult split = flagged("0-0").set("train.evalEvery", 3).set("data.validation", 0.1).dataParallel(2).microBatches(4)
        .runDir(dir.resolve("split")).fit();
    double evalOne = evalLoss(dir.resolve("one")), evalSplit = evalLoss(dir.resolve("split"));
    assertThat(evalSplit).isCloseTo(evalOne, org.assertj.core.api.Assertions.within(1e-5 * evalOne));
    RunResult tp = flagged("0-0").tensorParallel(2).microBatches(2).runDir(dir.resolve("tp")).fit();
    TensorParallelEquivalenceTest.assertClose(split.losses(), one.losses(), 1e-5);
    TensorParallelEquivalenceTest.assertClose(tp.losses(), one.losses(), 1e-5);
  }

  private static double evalLoss(Path runDir) {
    try {
      List<String> lines = java.nio.file.Files.readAllLines(runDir.resolve("metrics.jsonl"));
      return dev.weft.spec.SpecIO.jsonMapper().readTree(lines.get(lines.size() - 1)).get("eval_loss").asDouble();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A global batch without a target is skipped (no update, no NaN, no divergence); the run goes on. */
  @Test
  void aStepWithoutTargetsIsSkipped(@TempDir Path dir) {
    RunResult r = flagged(GLOBAL + "-" + 2 * GLOBAL).dataParallel(2).microBatches(2).runDir(dir).fit(); // step 2's samples
    assertThat(r.losses()).hasSize(2).allMatch(Double::isFinite);
    assertThat(r.summary().skippedSteps()).isEqualTo(1);
    assertThat(new LossNormalizer(0, 2).empty()).isTrue();
  }

  private static Trainer flagged(String masked) {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .set("model.config.vocab", FlaggedData.VOCAB).set("data.source", "dev.weft.train.FlaggedData:" + masked)
        .seqLen(SEQ).globalBatch(GLOBAL).microBatches(1).steps(3).warmup(1).lr(3e-3).seed(7);
  }

  /** One SGD step of {@code spec}'s layout over the masked batch, on rank threads; the whole model's gradients. */
  private static Step step(TrainingSpec spec) {
    var p = spec.parallel();
    List<Object[]> ranks = ThreadedRun.onRanks(spec.worldSize(), TIMEOUT, id -> {
      try (Distributed dist = Distributed.start(id, new DeviceMesh(p.dp(), p.pp(), p.tp()), new GlooBackend(), TIMEOUT)) {
        LanguageModel model = ModelBuilder.build(spec, dist.tp(), dist.coord().pp());
        List<Param> params = model.parameters().list();
        List<Weights.Slice> before = Weights.snapshot(model.parameters());
        ShardedOptimizer opt = new ShardedOptimizer(p.zero(), params, new int[params.size()], dist.dp(), dist.tp(), spec.train(),
            spec.precision().reduceDtype(), 1 << 18, p.zeroPrefetch());
        opt.pipelineGroup(dist.pp());
        opt.shardStep(dist.backend().shardStep());
        DistributedSampler sampler = new DistributedSampler(GLOBAL, p.dp(), dist.coord().dp(), p.microBatches());
        StepData data = new StepData(TokenSource.of(spec.data(), 1), sampler, SEQ, dist.device());
        MicroBatches passes = MicroBatches.forLoss(spec, model, opt, data, dist);
        List<Batches.Batch> batches = new ArrayList<>();
        for (int m = 0; m < p.microBatches(); m++) {
          long first = sampler.firstSample(0, m);
          batches.add(new Batches.Batch(tokens.narrow(0, first, sampler.microBatchSize()).clone(),
              targets.narrow(0, first, sampler.microBatchSize()).clone()));
        }
        LossNormalizer norm = LossNormalizer.of(batches, dist.dp());
        double local = passes.run(batches, norm, 1.0);
        double loss = Divergence.reduce(dist, passes.holdsLoss(), local, 0, new double[1][]);
        opt.sumOverTp(model.parameters().partialGradParams());
        opt.gradNorm(1.0);
        opt.step(1.0, 1.0);
        opt.gatherAll();
        List<Weights.Slice> after = Weights.snapshot(model.parameters());
        opt.releaseAll();
        opt.close();
        return new Object[] {loss, before, after};
      }
    });
    @SuppressWarnings("unchecked") Map<String, Tensor> before = Weights.assemble(ranks.stream().map(r -> (List<Weights.Slice>) r[1]).toList());
    @SuppressWarnings("unchecked") Map<String, Tensor> after = Weights.assemble(ranks.stream().map(r -> (List<Weights.Slice>) r[2]).toList());
    Map<String, Tensor> grads = new java.util.TreeMap<>();
    before.forEach((name, b) -> grads.put(name, b.sub(after.get(name))));
    return new Step((double) ranks.get(0)[0], grads);
  }
}
