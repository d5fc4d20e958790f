package dev.weft.bench;

import dev.weft.comm.Communicator;
import dev.weft.comm.CountingCommunicator;
import dev.weft.comm.Rendezvous;
import dev.weft.comm.gloo.GlooBackend;
import dev.weft.data.ArithmeticCorpus;
import dev.weft.data.Batches;
import dev.weft.launch.ThreadedRun;
import dev.weft.models.Parameters;
import dev.weft.models.Parameters.Param;
import dev.weft.models.gpt.Gpt;
import dev.weft.models.gpt.GptConfig;
import dev.weft.parallel.tensor.PartialGrads;
import dev.weft.parallel.tensor.TensorParallelLayers;
import dev.weft.parallel.tensor.TpOps;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.Tensor;

/**
 * Tensor parallelism on rank threads: the bytes one forward + backward hands to the tp communicator
 * (wrapped in a {@link CountingCommunicator}; all-reduce counted as the tensor, all-gather as its
 * output, reduce-scatter as its input), against the analytical volume of {@link #analytical}; and
 * each rank's parameter bytes against 1/tp of the split weights plus the replicated ones.
 */
public final class TpBench {
  static final long SEED = 1234;

  /** Payload bytes per kind of collective for one forward + backward of one micro-batch. */
  public record Volume(long allReduce, long allGather, long reduceScatter) {
    public long total() { return allReduce + allGather + reduceScatter; }

    /** Bytes each rank sends with ring algorithms: all-reduce 2(p−1)/p, all-gather and reduce-scatter (p−1)/p. */
    public double wirePerRank(int tp) {
      double f = (tp - 1.0) / tp;
      return 2 * f * allReduce + f * (allGather + reduceScatter);
    }
  }

  /** Parameter bytes of one rank: split weights (its slices) and replicated ones. */
  public record Memory(long shardedBytes, long replicatedBytes) {
    public long total() { return shardedBytes + replicatedBytes; }
  }

  public record Result(GptConfig model, int tp, boolean sequenceParallel, int batch, Volume measured, Volume expected,
                       long calls, Memory memory) {}

  private TpBench() {}

  /**
   * Per micro-batch of b×t tokens, with A = b·t·h fp32 activations (4 bytes each) and L layers.
   * Without sequence parallelism, all-reduces of A: forward at the vocab-parallel embedding and after
   * each attention projection and MLP down projection (1 + 2L); backward at each fused QKV input, each
   * MLP up input and the LM-head input (2L + 1); plus the vocab-parallel cross-entropy's 3·b·t values in two
   * all-reduces (the max; then the sum of exponentials and the target logit together). With sequence parallelism each forward
   * all-reduce becomes a reduce-scatter of A and each backward one an all-gather, and every column
   * layer's input (QKV, MLP up, LM head: 2L + 1) is all-gathered forward and reduce-scattered backward;
   * the replicated parameters whose gradients are partial per rank (LayerNorms, row biases, position
   * embedding) are summed by one all-reduce. Independent of tp in these units (payload, not wire bytes).
   */
  public static Volume analytical(GptConfig c, int batch, boolean sequenceParallel) {
    long b = batch, t = c.seqLen(), h = c.hidden(), layers = c.layers();
    long a = 4 * b * t * h;
    long crossEntropy = 3 * 4 * b * t;
    if (!sequenceParallel) return new Volume((4 * layers + 2) * a + crossEntropy, 0, 0);
    long partialGradParams = replicatedParameters(c);
    long gathers = (2 * layers + 1) * a * 2; // column inputs forward + row outputs' gradients backward
    long scatters = (2 * layers + 1) * a * 2; // row outputs forward + column inputs' gradients backward
    return new Volume(crossEntropy + 4 * partialGradParams, gathers, scatters);
  }

  /**
   * Parameters every tp rank holds whole: per layer two LayerNorms (2h each) and the biases of the two
   * row layers (h each), the final LayerNorm (2h) and the position embedding (seq × h).
   */
  public static long replicatedParameters(GptConfig c) {
    long h = c.hidden();
    return c.layers() * (4 * h + 2 * h) + 2 * h + (long) c.seqLen() * h;
  }

  public static List<Result> measure(GptConfig cfg, int tp, int batch) {
    Duration timeout = Duration.ofSeconds(120);
    List<List<Result>> perRank = ThreadedRun.onRanks(tp, timeout, id -> {
      Rendezvous store = Rendezvous.connect(id.masterAddr(), id.masterPort(), id.rank(), id.rank() == 0, timeout);
      List<Result> out = new ArrayList<>();
      for (boolean sp : new boolean[] {false, true}) {
        Communicator group = new GlooBackend().createGroup(store, sp ? "tp-bench-sp" : "tp-bench", id.rank(), tp, timeout);
        out.add(oneLayout(cfg, tp, batch, sp, group));
      }
      return out;
    });
    return perRank.get(0);
  }

  private static Result oneLayout(GptConfig cfg, int tp, int batch, boolean sp, Communicator group) {
    CountingCommunicator counting = new CountingCommunicator(group);
    Gpt model = new Gpt(cfg, new TensorParallelLayers(SEED, new TpOps(counting), sp));
    Batches.Batch data = Batches.make(new ArithmeticCorpus(SEED), 0, batch, cfg.seqLen());
    forwardBackward(model, data, counting); // warm-up; counts are taken on the second pass
    long ar = counting.allReduceBytes(), ag = counting.allGatherBytes(), rs = counting.reduceScatterBytes();
    long calls = counting.calls();
    forwardBackward(model, data, counting);
    Volume measured = new Volume(counting.allReduceBytes() - ar, counting.allGatherBytes() - ag,
        counting.reduceScatterBytes() - rs);
    return new Result(cfg, tp, sp, batch, measured, analytical(cfg, batch, sp), counting.calls() - calls,
        memory(model.parameters()));
  }

  private static void forwardBackward(Gpt model, Batches.Batch data, Communicator tp) {
    try (PointerScope scope = new PointerScope()) {
      Tensor loss = model.loss(data.tokens(), data.targets());
      loss.backward();
      PartialGrads.allReduce(model.parameters().partialGradParams(), tp);
      for (Param p : model.parameters().list()) {
        Tensor g = p.tensor().grad();
        if (g.defined()) g.zero_();
      }
    }
  }

  private static Memory memory(Parameters params) {
    long sharded = 0, whole = 0;
    for (Param p : params.list()) {
      long bytes = p.numel() * p.tensor().element_size();
      if (p.isSharded()) sharded += bytes;
      else whole += bytes;
    }
    return new Memory(sharded, whole);
  }

  public static List<BenchRow> rows(List<Result> results) {
    List<BenchRow> rows = new ArrayList<>();
    for (Result r : results) {
      String layout = "tp=" + r.tp() + (r.sequenceParallel() ? " + SP" : "");
      Volume m = r.measured(), e = r.expected();
      rows.add(BenchRow.of("tp", layout + ": bytes per forward+backward (batch " + r.batch() + ") vs analytical",
          m.total(), e.total(), "B", "= 1", String.format(Locale.ROOT,
              "%d calls; all-reduce %d/%d, all-gather %d/%d, reduce-scatter %d/%d; wire/rank %.2f MiB", r.calls(),
              m.allReduce(), e.allReduce(), m.allGather(), e.allGather(), m.reduceScatter(), e.reduceScatter(),
              m.wirePerRank(r.tp()) / (1 << 20))));
    }
    Result r = results.get(0);
    GptConfig c = r.model();
    long replicated = 4 * replicatedParameters(c), all = 4 * c.parameterCount();
    long shardedFull = all - replicated;
    int tp = r.tp();
    rows.add(BenchRow.of("tp", "tp=" + tp + ": parameter bytes per rank vs 1/tp of the whole model", r.memory().total(),
        (double) all / tp, "B", "(report)", "the replicated parameters do not shrink; see the next rows"));
    rows.add(BenchRow.of("tp", "tp=" + tp + ": parameter bytes per rank vs 1/tp of split + replicated", r.memory().total(),
        (double) shardedFull / tp + replicated, "B", "= 1", "per-rank memory as designed"));
    rows.add(BenchRow.of("tp", "tp=" + tp + ": split weights per rank vs 1/tp of split weights", r.memory().shardedBytes(),
        (double) shardedFull / tp, "B", "= 1", "embeddings, QKV, MLP, projections, LM head"));
    rows.add(BenchRow.of("tp", "tp=" + tp + ": replicated per rank vs analytical", r.memory().replicatedBytes(),
        replicated, "B", "= 1", String.format(Locale.ROOT, "LayerNorms, row biases, position embedding: %.1f%% of the rank",
            100.0 * r.memory().replicatedBytes() / r.memory().total())));
    return rows;
  }
}
