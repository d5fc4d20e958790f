package dev.weft.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.weft.Trainer;
import dev.weft.comm.DeviceMesh;
import dev.weft.comm.Distributed;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.data.BestFitPacking;
import dev.weft.data.Batches;
import dev.weft.data.DistributedSampler;
import dev.weft.data.ShardWriter;
import dev.weft.data.TokenSource;
import dev.weft.eval.Evaluation;
import dev.weft.launch.ThreadedRun;
import dev.weft.models.LanguageModel;
import dev.weft.models.Parameters.Param;
import dev.weft.parallel.data.ShardedOptimizer;
import dev.weft.spec.TrainingSpec;
import dev.weft.util.Tensors;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bytedeco.pytorch.NoGradGuard;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Documents of random lengths (with random target flags), prepared into token shards and packed best-fit into
 * samples: the packed global batch's summed loss equals the sum of each document's loss computed alone, on one rank
 * and under dp2, tp2 with sequence parallelism and pp2 (the documents reach every stage), for a RoPE decoder and for
 * the GPT with learned positions. Without the documents' masks and positions the same batch's loss differs.
 */
class PackedDocumentsLossTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final int SEQ = 24, VOCAB = 256;
  @TempDir static Path dir;
  private static List<int[]> docs = new ArrayList<>();
  private static List<boolean[]> flags = new ArrayList<>();
  private static int samples;

  @BeforeAll
  static void documents() {
    Random r = new Random(3);
    for (long seed = 0; ; seed++) { // random lengths until the windows split evenly over 2 ranks × 2 micro-batches
      docs.clear();
      flags.clear();
      Random s = new Random(seed);
      int n = 12 + s.nextInt(6);
      long[] lengths = new long[n];
      for (int d = 0; d < n; d++) lengths[d] = 2 + s.nextInt(SEQ); // 2 .. SEQ + 1 tokens: every one fits a window
      samples = BestFitPacking.pack(lengths, SEQ + 1).size();
      if (samples % 4 != 0 || samples == lengths.length) continue;
      for (long l : lengths) {
        int[] ids = new int[(int) l];
        boolean[] f = new boolean[(int) l];
        for (int i = 0; i < l; i++) {
          ids[i] = r.nextInt(VOCAB);
          f[i] = r.nextInt(4) != 0;
        }
        docs.add(ids);
        flags.add(f);
      }
      break;
    }
    try (ShardWriter w = new ShardWriter(dir, VOCAB, "test", -1, 50, true)) { // small shards: documents straddle them
      for (int d = 0; d < docs.size(); d++) {
        w.append(docs.get(d), flags.get(d));
        w.endDocument();
      }
      w.finish();
    }
  }

  private static Trainer llama() {
    return Trainer.model("llama").set("model.config.num_hidden_layers", 2).data(dir.toString()).set("data.packing", "true")
        .seqLen(SEQ).globalBatch(samples).microBatches(1).steps(1).warmup(0).seed(11);
  }

  private static Trainer gpt() {
    return Trainer.model("gpt").set("model.config.layers", 2).set("model.config.hidden", 32).set("model.config.heads", 2)
        .set("model.config.vocab", VOCAB).data(dir.toString()).set("data.packing", "true")
        .seqLen(SEQ).globalBatch(samples).microBatches(1).steps(1).warmup(0).seed(11);
  }

  @Test
  void aRopeDecoderSeesEachDocumentAlone() {
    double[] alone = alone(llama().toSpec());
    double sum = alone[0];
    assertThat(packed(llama().toSpec())).isCloseTo(sum, within(1e-5 * sum));
    assertThat(packed(llama().dataParallel(2).microBatches(2).toSpec())).as("dp2").isCloseTo(sum, within(1e-5 * sum));
    assertThat(packed(llama().tensorParallel(2).sequenceParallel().toSpec())).as("tp2 sp").isCloseTo(sum, within(1e-5 * sum));
    assertThat(packed(llama().pipeline(2).microBatches(2).toSpec())).as("pp2").isCloseTo(sum, within(1e-5 * sum));
    assertThat(Math.abs(runTogether(llama().toSpec()) - sum)).as("without the documents").isGreaterThan(20 * 1e-5 * sum);
    // weft eval scores packed chat shards as training reads them: the mean over the conversations' own targets
    TokenSource packed = TokenSource.of(llama().toSpec().data(), 1);
    Evaluation.Result eval = Evaluation.run(ModelBuilder.whole(llama().toSpec()), packed, SEQ);
    assertThat(eval.tokens()).isEqualTo((long) alone[1]);
    assertThat(eval.loss()).isCloseTo(sum / alone[1], within(1e-5 * sum / alone[1]));
  }

  @Test
  void gptWithLearnedPositionsSeesEachDocumentAlone() {
    double sum = alone(gpt().toSpec())[0];
    assertThat(packed(gpt().toSpec())).isCloseTo(sum, within(1e-5 * sum));
    assertThat(packed(gpt().tensorParallel(2).sequenceParallel().microBatches(2).toSpec())).as("tp2 sp")
        .isCloseTo(sum, within(1e-5 * sum));
  }

  /** The sum over documents of each one's loss, and their count of targets, on one rank. */
  private static double[] alone(TrainingSpec spec) {
    LanguageModel m = ModelBuilder.whole(spec);
    double sum = 0;
    long count = 0;
    try (NoGradGuard ng = new NoGradGuard()) {
      for (int d = 0; d < docs.size(); d++) {
        int[] ids = docs.get(d);
        long[] in = new long[ids.length - 1], tg = new long[ids.length - 1];
        for (int t = 0; t + 1 < ids.length; t++) {
          in[t] = ids[t];
          tg[t] = flags.get(d)[t + 1] ? ids[t + 1] : Batches.IGNORE;
          if (flags.get(d)[t + 1]) count++;
        }
        sum += m.lossSum(Tensors.ofLongs(in).view(1, -1), Tensors.ofLongs(tg).view(1, -1)).item_double();
      }
    }
    return new double[] {sum, count};
  }

  /** The packed batch's summed loss with the documents ignored: one causal sequence per sample. */
  private static double runTogether(TrainingSpec spec) {
    LanguageModel m = ModelBuilder.whole(spec);
    Batches.Batch b = Batches.make(TokenSource.of(spec.data(), spec.train().seed()), 0, samples, SEQ);
    try (NoGradGuard ng = new NoGradGuard()) {
      return m.lossSum(b.tokens(), b.targets()).item_double();
    }
  }

  /** One epoch of packed samples (each window once) through {@code spec}'s layout: the global batch's summed loss. */
  private static double packed(TrainingSpec spec) {
    var p = spec.parallel();
    List<Double> sums = ThreadedRun.onRanks(spec.worldSize(), TIMEOUT, id -> {
      try (Distributed dist = Distributed.start(id, new DeviceMesh(p.dp(), p.pp(), p.tp()), new GlooBackend(), TIMEOUT)) {
        LanguageModel model = ModelBuilder.build(spec, dist.tp(), dist.coord().pp());
        List<Param> params = model.parameters().list();
        ShardedOptimizer opt = new ShardedOptimizer(p.zero(), params, new int[params.size()], dist.dp(), dist.tp(), spec.train(),
            spec.precision().reduceDtype(), 1 << 18, p.zeroPrefetch());
        opt.pipelineGroup(dist.pp());
        opt.shardStep(dist.backend().shardStep());
        DistributedSampler sampler = new DistributedSampler(samples, p.dp(), dist.coord().dp(), p.microBatches());
        TokenSource source = TokenSource.of(spec.data(), spec.train().seed());
        assertThat(source.packed()).isTrue();
        assertThat(source.distinctSamples()).isEqualTo(samples);
        StepData data = new StepData(source, sampler, SEQ, dist.device());
        MicroBatches passes = MicroBatches.forLoss(spec, model, opt, data, dist);
        List<Batches.Batch> batches = data.hostBatches(1);
        LossNormalizer norm = LossNormalizer.of(batches, dist.dp());
        double local = passes.run(data.place(batches), norm, 1.0);
        double mean = Divergence.reduce(dist, passes.holdsLoss(), local, 0, new double[1][]);
        opt.close();
        return mean;
      }
    });
    long count = flags.stream().mapToLong(f -> { long n = 0; for (int i = 1; i < f.length; i++) if (f[i]) n++; return n; }).sum();
    return sums.get(0) * count; // the reported mean over the global batch's targets, times their number
  }
}
