package dev.weft.plan;

import dev.weft.comm.DeviceMesh;
import dev.weft.models.LayerPartition;
import dev.weft.models.ModelContext;
import dev.weft.models.ModelFactories;
import dev.weft.models.ModelShape;
import dev.weft.spec.CpMethod;
import dev.weft.spec.ParallelSpec;
import dev.weft.spec.TrainingSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Per-rank memory and communication of a spec's layout, computed from the model's {@link ModelShape} before
 * any rank starts (pure; doubles throughout, so absurd sizes give absurd numbers instead of overflow).
 * Parameters are fp32 master weights; gradients fp32; Adam keeps two fp32 moments; ZeRO divides the
 * optimizer state (stage ≥ 1), gradients (≥ 2) and parameters (3) by dp (by the shard group under HSDP, whose
 * replicas all-reduce the gradient shard once a step; a routed expert's by the dp/ep ranks holding it, each rank
 * holding 1/ep of them under expert parallelism); tensor parallelism splits
 * the matmul weights and the vocabulary; pipeline stages hold their layers, the first the embeddings,
 * the last the final norm and head (a tied head's weight is held there too when the stages differ).
 * Activations follow Korthikanti et al. (2022) less the s² scores a fused attention kernel does not keep, in fp32 unless autocast runs in 16 bits. Under LoRA the model's
 * weights are a frozen base, held once and whole on every dp rank (never ZeRO-sharded, no gradient, no optimizer
 * state, never reduced); the adapters alone are trained, so gradients, optimizer state and the dp traffic are theirs.
 */
public final class MemoryPlan {
  /**
   * A worker JVM with libtorch loaded, before the model: gpt-tiny's measured peak RSS (419 MiB per
   * rank, 2026-12) less its planned model state and activations.
   */
  public static final double RUNTIME_BYTES = 384.0 * (1 << 20);

  private MemoryPlan() {}

  /** One entry per rank, or empty when the model factory does not describe its shape. */
  public static Optional<List<RankPlan>> ranks(TrainingSpec spec) {
    return ModelFactories.lookup(spec.model().factory()).shape(spec).map(c -> ranks(spec, c));
  }

  /** As {@link #ranks(TrainingSpec)} for the same layout trained whole (LoRA off): what LoRA saves is the difference. */
  public static Optional<List<RankPlan>> fullFineTune(TrainingSpec spec) {
    return ModelFactories.lookup(spec.model().factory()).shape(spec).map(c -> ranks(spec, c.withAdapters(0, 0)));
  }

  private static List<RankPlan> ranks(TrainingSpec spec, ModelShape c) {
    LayerPartition part = ModelContext.partitionFor(spec.parallel(), c.layers());
    ParallelSpec p = spec.parallel();
    List<RankPlan> out = new ArrayList<>();
    DeviceMesh mesh = new DeviceMesh(p.dp(), p.pp(), p.cp(), p.tp());
    double[] routed = p.ep() > 1 ? ExpertPlan.routedPerLayer(spec) : new double[0]; // read once, not per rank
    for (int r = 0; r < p.worldSize(); r++) out.add(rank(spec, c, part, routed, r, mesh.coord(r).pp()));
    return out;
  }

  /** @param routedPerLayer expert parallelism: each layer's routed experts' parameters (empty at ep = 1) */
  private static RankPlan rank(TrainingSpec spec, ModelShape c, LayerPartition part, double[] routedPerLayer, int rank, int stage) {
    ParallelSpec p = spec.parallel();
    double h = c.hidden(), v = c.vocab(), s = spec.data().seqLen(), tp = p.tp();
    double dp = p.zeroShardSize() > 0 ? p.zeroShardSize() : p.dp(); // what ZeRO shards over: HSDP's shard group
    double replicas = p.dp() / dp;
    boolean first = part.virtualStage(stage, 0) == 0;
    boolean last = part.virtualStage(stage, part.chunks() - 1) == part.virtualStages() - 1;
    int layers = 0;
    for (int k = 0; k < part.chunks(); k++) layers += part.counts().get(part.virtualStage(stage, k));
    double perLayer = c.splitPerLayer() / tp + c.replicatedPerLayer();
    double head = c.tied() && first ? 0 : c.head() / tp;
    // expert parallelism: 1/ep of this stage's routed experts here, sharded over the dp/ep holding them (HSDP leaves
    // experts over all of edp)
    double routed = 0;
    for (int k = 0; k < part.chunks(); k++) {
      int vs = part.virtualStage(stage, k);
      for (int i = part.start(vs); i < Math.min(part.end(vs), routedPerLayer.length); i++) routed += routedPerLayer[i];
    }
    double experts = routed / tp, edp = (double) p.dp() / p.ep();
    double model = layers * perLayer + (first ? c.embedding() / tp + c.positions() : 0) + (last ? c.finalNorm() + head : 0)
        - experts + experts / p.ep();
    double adapters = layers * (c.adapterSplitPerLayer() / tp + c.adapterReplicatedPerLayer());
    // the frozen base: fp32 as loaded, but its projections (the split weights) in train.lora.quantize's bytes per weight,
    // plus, compressed, one layer's projections made again in fp32 for a multiplication
    double bpw = baseBytesPerWeight(spec.train().lora().quantize()), projections = layers * c.splitPerLayer() / tp;
    // a compressed base on one unsplit rank holds the embedding and head in 16 bits too (FrozenBase.table)
    boolean tables = c.lora() && bpw < 4 && p.tp() == 1 && p.cp() == 1 && p.pp() == 1;
    double tableWeights = tables ? c.embedding() + head : 0;
    double frozenBytes = !c.lora() ? 0 : 4 * model - (4 - bpw) * projections + (bpw < 4 ? 4 * c.splitPerLayer() / tp : 0)
        - 2 * tableWeights;
    double params = c.lora() ? adapters : model; // what trains: gradients, optimizer state, dp reduction
    double mine = c.lora() ? 0 : experts / p.ep(); // trained experts here (LoRA freezes them with the base)
    double fp32 = 4 * params, sharded = 4 * ((params - mine) / dp + mine / edp);
    int zero = p.zero();
    double parameters = frozenBytes + (zero == 3 ? sharded : fp32); // ZeRO-3: dense shards over dp, experts' over edp
    double gradients = zero >= 2 ? sharded : fp32;
    double optimizer = 2 * (zero >= 1 ? sharded : fp32);

    double micro = (double) spec.train().globalBatch() / (p.dp() * p.microBatches());
    double cp = p.cp();
    double tokens = micro * s / cp; // context parallelism: this rank's 1/cp of each sequence
    double act = "fp32".equals(spec.precision().dtype()) ? 4 : 2;
    double layerAct = spec.train().recompute() ? tokens * h * act
        : act * tokens * (c.activationsWhole() + c.activationsSplit() / tp) + act * 2.5 * c.heads() / tp * micro * keptScores(p, s)
          + gatheredKv(p, micro * s * h / tp * act);
    double inFlight = p.pp() == 1 ? 1 : "gpipe".equals(p.schedule()) ? p.microBatches() : Math.min(p.microBatches(), p.pp() - stage);
    // logits, softmax and their gradient, fp32; over chunks (train.lossChunk) one chunk's logits and their gradient in
    // place of the softmax, and the hidden states' gradient kept for the backward
    int chunk = spec.train().lossChunk();
    double logits = !last ? 0 : tables ? 4 * Math.min(tokens, chunk > 0 ? chunk : tokens) * v + 4 * tokens * h // made head: one chunk's logits, softmax and gradient in place
        : chunk > 0 && tokens > chunk ? 2 * 4 * chunk * v / tp + 4 * tokens * h : 3 * 4 * tokens * v / tp;
    double activations = inFlight * layers * layerAct + logits;

    double reduceBytes = "fp32".equals(spec.precision().reduceDtype()) ? 4 : 2;
    double ring = (dp - 1) / dp;
    double dpBytes = dpBytes(zero, ring, params - mine, reduceBytes) + dpBytes(zero, (edp - 1) / edp, mine, reduceBytes);
    // HSDP: the gradient shard all-reduced across the replicas (stage 1 keeps fp32 gradients, 2-3 send in the reduce dtype)
    double replicateBytes = 2 * (replicas - 1) / replicas * (params - mine) / dp * (zero == 1 ? 4 : reduceBytes);
    double tpRing = 2 * (tp - 1) / tp;
    double tpBytes = p.microBatches() * layers * 4 * tpRing * tokens * h * act; // 2 all-reduces forward, 2 backward per layer
    double ppBytes = p.pp() == 1 ? 0 : p.microBatches() * tokens * h * act * ((last ? 0 : 1) + (first ? 0 : 1));
    double pending = p.dp() == 1 ? fp32 : 0; // dp > 1: a bucket at a time, which the plan neglects
    // ring attention: K and V (at most as wide as the hidden size; grouped-query heads send less) passed cp − 1 times
    // per layer and micro-batch, their gradients as many times back (all-gather: the same bytes, gathered once and
    // reduce-scattered once); then the owned gradients summed over cp
    double kv = 2 * tokens * h / tp * act;
    double owned = zero >= 1 ? params / dp : params;
    double cpBytes = cp == 1 ? 0 : p.microBatches() * layers * 2 * (cp - 1) * kv + 2 * (cp - 1) / cp * owned * 4;
    return new RankPlan(rank, p.dp(), p.tp(), p.pp(), c.lora() ? model + adapters : model, params, parameters, gradients, optimizer, activations, RUNTIME_BYTES,
        dpBytes, tpBytes, ppBytes, replicateBytes, pending, p.cp(), cpBytes);
  }

  /** Bytes per frozen projection weight under {@code train.lora.quantize}: NF4's 4 bits and an fp32 absmax per 64. */
  static double baseBytesPerWeight(String quantize) {
    return switch (quantize) {
      case "nf4" -> 0.5 + 4.0 / 64;
      case "int8" -> 1;
      case "bf16", "fp16" -> 2;
      default -> 4;
    };
  }

  /** What a rank sends over a ring of ranks ({@code ring} = (n − 1)/n) to reduce, and under ZeRO regather, {@code n} parameters. */
  private static double dpBytes(int zero, double ring, double n, double reduceBytes) {
    double fp32 = 4 * n;
    return switch (zero) {
      case 0 -> 2 * ring * n * reduceBytes;                   // all-reduce
      case 1 -> 2 * ring * n * reduceBytes + ring * fp32;     // all-reduce, then all-gather of updated shards
      case 2 -> ring * n * reduceBytes + ring * fp32;         // reduce-scatter, all-gather
      default -> ring * n * reduceBytes + 2 * ring * fp32;    // reduce-scatter, gathers for forward and backward
    };
  }

  /**
   * K and V of the other cp ranks' tokens that all-gather attention keeps for backward, per layer ({@code
   * wholeSequence}: bytes of the whole sequence at the hidden width, which bounds the grouped-query K/V).
   */
  static double gatheredKv(ParallelSpec p, double wholeSequence) {
    if (p.cp() == 1 || CpMethod.of(p.cpMethod()) != CpMethod.ALLGATHER) return 0;
    return 2 * wholeSequence * (p.cp() - 1) / p.cp();
  }

  /**
   * Attention scores one sample keeps per head for backward: none where libtorch's fused kernel runs (one rank,
   * all-gather, all-to-all: it keeps the output and one log-sum-exp per query, measured in CpActivationMemoryTest),
   * the {@link #scores} of the chunk pairs where ring attention computes its blocks' scores explicitly.
   */
  static double keptScores(ParallelSpec p, double s) {
    return p.cp() > 1 && CpMethod.of(p.cpMethod()) == CpMethod.RING ? scores(s, p.cp()) : 0;
  }

  /**
   * Attention scores one sample computes per head on a rank: s² in one piece, or under ring and all-gather
   * attention the chunk pairs it computes (a rank's two zigzag chunks of c = s/2cp tokens see 2cp + 1 chunks
   * of keys between them).
   */
  static double scores(double s, int cp) {
    if (cp == 1) return s * s;
    double c = s / (2.0 * cp);
    return (2.0 * cp + 1) * c * c;
  }
}
