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
 * Activations are the shape's per-token counts (a decoder's counted from its code, every tensor its forward holds until
 * the step ends: {@code LayerActivations}; others Korthikanti et al. (2022) less the s² scores a fused attention kernel
 * does not keep), in fp32 unless autocast runs in 16 bits, plus the loss's logits and a compressed base's backward hold.
 * Under LoRA the model's
 * weights are a frozen base, held once and whole on every dp rank (never ZeRO-sharded, no gradient, no optimizer
 * state, never reduced); the adapters alone are trained, so gradients, optimizer state and the dp traffic are theirs.
 */
public final class MemoryPlan {
  /**
   * A worker JVM with libtorch loaded, before the model: gpt-tiny's measured peak RSS at dp = 2 (320 MiB per rank,
   * 2026-12-07, with {@code JavaCommand.YOUNG_GENERATION}; 419 MiB before it) less its planned model state and activations.
   */
  public static final double RUNTIME_BYTES = 288.0 * (1 << 20);

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
    double[] routed = ExpertPlan.routedPerLayer(spec); // read once, not per rank
    boolean layerCheckpoints = spec.checkpointsEachLayer(java.util.Arrays.stream(routed).anyMatch(x -> x > 0));
    for (int r = 0; r < p.worldSize(); r++) {
      out.add(rank(spec, c, part, p.ep() > 1 ? routed : new double[0], layerCheckpoints, r, mesh.coord(r).pp()));
    }
    return out;
  }

  /**
   * @param routedPerLayer expert parallelism: each layer's routed experts' parameters (empty at ep = 1)
   * @param layerCheckpoints {@link TrainingSpec#checkpointsEachLayer}
   */
  private static RankPlan rank(TrainingSpec spec, ModelShape c, LayerPartition part, double[] routedPerLayer, boolean layerCheckpoints,
                               int rank, int stage) {
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
    double act = "fp32".equals(spec.precision().dtype()) ? 4 : 2;
    // the frozen base: its projections (the split weights) in train.lora.quantize's bytes per weight, the embedding and
    // head in frozenEmbeddingBytesPerWeight's, the rest (norms, biases) fp32; compressed, plus the one buffer the
    // projections are made again in for a multiplication, in the product's dtype (the largest projection, fused parts
    // together)
    double bpw = baseBytesPerWeight(spec.train().lora().quantize()), projections = layers * c.splitPerLayer() / tp;
    double embeddingHere = first ? c.embedding() / tp : 0, headHere = last ? head : 0; // a tied head on the first stage is the embedding
    double embeddingHead = embeddingHere + headHere;
    double frozenBytes = !c.lora() ? 0 : bpw * projections + frozenEmbeddingBytesPerWeight(spec) * embeddingHead
        + 4 * (model - projections - embeddingHead) + (bpw < 4 ? act * c.largestProjection() / tp : 0);
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
    // every tensor a layer's forward makes lives until the step ends (LayerActivations); recomputed, a layer keeps its
    // input, and the stage's chunk being recomputed (recompute works per pipeline chunk: at pp = 1 the whole model) holds
    // its whole set again during the backward, beside what its no-grad forward left resident (measured: a SmolLM2-135M
    // nf4 run peaked at 2,776 MiB recomputed vs 2,126 MiB not, docs/performance.md round 4); checkpointed per layer, the
    // rerun's handles are closed before its backward, and twice its set stays an upper bound (round 10: 4-6 % over)
    // under a 16-bit autocast the residual stream stays fp32 (the embedding's output is fp32, norms compute in fp32): a
    // layer's two norm outputs and two residual sums (LayerActivations' first 4h), a recomputed layer's kept input and
    // the ends (measured, docs/performance.md round 11: counted at 2 bytes, Llama-3.1-8B nf4-dq under bf16 planned 9 % under)
    double residual = 4 * tokens * h;
    double layerAct = act * tokens * (c.activationsWhole() + c.activationsSplit() / tp) + (4 - act) * residual
        + act * 2.5 * c.heads() / tp * micro * keptScores(p, s)
        + gatheredKv(p, micro * s * h / tp * act);
    double heldPerLayer = spec.train().recompute() ? tokens * h * 4 : layerAct;
    double inFlight = p.pp() == 1 ? 1 : "gpipe".equals(p.schedule()) ? p.microBatches() : Math.min(p.microBatches(), p.pp() - stage);
    // the embedding's output (first stage); the final norm's output (last)
    double ends = 4 * tokens * h * ((first ? 1 : 0) + (last ? 1 : 0));
    // what the loss holds until the step ends, and what its backward adds for a moment at the backward's start; by the
    // backward's end a compressed base's hooks have left their gradients (held until the step ends), and the larger of
    // the two is the step's peak
    int chunk = spec.train().lossChunk();
    // a compressed base's backward hooks: one call's dX held beside autograd's gradients at a time
    double backward = act * tokens * c.backwardPerLayer() / tp;
    int chunkLayers = 0;
    for (int k = 0; k < part.chunks(); k++) chunkLayers = Math.max(chunkLayers, part.counts().get(part.virtualStage(stage, k)));
    // recomputed: on one unsplit rank each layer is checkpointed (ModelBuilder: LayerCheckpoint), so one layer's set is
    // made again in the backward; split, the stage's chunk is recomputed whole
    // the loss; a 16-bit held head (tables) always runs over chunks, the hidden states' gradient held and one chunk's
    // logits (made a block of vocabulary rows at a time, each block's product freed as it is used) for a moment (until
    // round 11 two chunks more stood in for what the step really kept: every block's product to its chunk's end, and
    // every gradient a hook saw to the step's end, util.HookArgument)
    boolean tables = spec.holdsTablesIn16Bits();
    double tableChunk = Math.min(tokens, chunk > 0 ? chunk : tokens);
    double lossHeld = tables ? 4 * tokens * h : lossHeld(tokens, v / tp, h, chunk);
    double lossTransient = tables ? 4 * tableChunk * v : lossTransient(tokens, v / tp, chunk);
    double recomputed = !spec.train().recompute() ? 0 : 2 * (layerCheckpoints ? 1 : chunkLayers) * layerAct;
    // the backward's moments, one at a time: the loss's start, a compressed base's hooks, the trained tables' whole
    // gradients at its end; then Adam's denominators (counted on top, as a bound)
    double adam = spec.train().optimizer().toLowerCase(java.util.Locale.ROOT).startsWith("adam")
        ? optimizerTemporaries(largestUnit(c.lora(), perLayer, c.adapterSplitPerLayer() / tp + c.adapterReplicatedPerLayer(),
            embeddingHere, headHere, params), zero >= 1 ? dp : 1) : 0;
    double tableGrads = c.lora() ? 0 : tableGradients(embeddingHere, headHere, c.tied() && first && last);
    double activations = inFlight * (layers * heldPerLayer + ends) + recomputed
        + (last ? lossHeld : 0) + Math.max(Math.max(last ? lossTransient : 0, backward), tableGrads) + adam;

    double reduceBytes = "fp32".equals(spec.precision().reduceDtype()) ? 4 : 2;
    double ring = (dp - 1) / dp;
    double dpBytes = dpBytes(zero, ring, params - mine, reduceBytes) + dpBytes(zero, (edp - 1) / edp, mine, reduceBytes);
    // HSDP: the gradient shard all-reduced across the replicas (stage 1 keeps fp32 gradients, 2-3 send in the reduce dtype)
    double replicateBytes = 2 * (replicas - 1) / replicas * (params - mine) / dp * (zero == 1 ? 4 : reduceBytes);
    double tpRing = 2 * (tp - 1) / tp;
    double tpBytes = p.microBatches() * layers * 4 * tpRing * tokens * h * act; // 2 all-reduces forward, 2 backward per layer
    double ppBytes = p.pp() == 1 ? 0 : p.microBatches() * tokens * h * act * ((last ? 0 : 1) + (first ? 0 : 1));
    // autograd's own gradients beside the flat buffer: the whole model's at dp = 1 under ZeRO-2/3 (copied after backward);
    // none where they are views of the buffer; at dp > 1 a bucket at a time, which the plan neglects
    double pending = p.dp() == 1 && !ParallelSpec.gradientsInFlatBuffer(p.dp(), zero) ? fp32 : 0;
    // ring attention: K and V (at most as wide as the hidden size; grouped-query heads send less) passed cp − 1 times
    // per layer and micro-batch, their gradients as many times back (all-gather: the same bytes, gathered once and
    // reduce-scattered once); then the owned gradients summed over cp
    double kv = 2 * tokens * h / tp * act;
    double owned = zero >= 1 ? params / dp : params;
    double cpBytes = cp == 1 ? 0 : p.microBatches() * layers * 2 * (cp - 1) * kv + 2 * (cp - 1) / cp * owned * 4;
    return new RankPlan(rank, p.dp(), p.tp(), p.pp(), c.lora() ? model + adapters : model, params, parameters, gradients, optimizer, activations, RUNTIME_BYTES,
        dpBytes, tpBytes, ppBytes, replicateBytes, pending, p.cp(), cpBytes);
  }

  /**
   * What Adam's update makes beside its state, for a moment: one bucket's denominator sqrt(v)/√bc₂ + ε at a time (each
   * freed before the next bucket's), the largest owned bucket shard in fp32 bytes. Buckets group whole units (a layer,
   * the embedding, the head; LoRA: a layer's adapters) of at least a bucket's elements, so the largest is about the
   * largest unit ({@code largestUnit}, parameters) or, for units smaller than a bucket, the bucket ({@code shards}: ZeRO's
   * dp, else 1). Before the denominators were freed per bucket, all of them were held until the step ended: a
   * SmolLM2-135M full fine-tune peaked 427 MiB above a plan without them (docs/performance.md).
   */
  static double optimizerTemporaries(double largestUnit, double shards) {
    return 4 * largestUnit / shards;
  }

  /**
   * What a trained token embedding and head add late in the backward (fp32 bytes): each one's gradient is made whole
   * (the embedding's dense scatter, the head's product) before it is added into {@code .grad}, and a table that is both
   * ({@code tiedHere}) holds their sum too. Measured: a Qwen2.5-0.5B full fine-tune (tied, 519 MiB table) rose
   * 1,595 MiB in its backward at seq 128, three tables (docs/performance.md round 8).
   */
  static double tableGradients(double embedding, double head, boolean tiedHere) {
    return 4 * (tiedHere ? 3 * embedding : embedding + head);
  }

  /** The largest unit of trained parameters a bucket holds whole (see {@link #optimizerTemporaries}), at most all of them. */
  static double largestUnit(boolean lora, double layer, double adapterLayer, double embedding, double head, double params) {
    double unit = lora ? adapterLayer : Math.max(layer, Math.max(embedding, head));
    return Math.min(params, Math.max(unit, Math.min(params, 1 << 18)));
  }

  /** Whether the head's loss runs over chunks of {@code chunk} tokens (train.lossChunk) at {@code tokens} tokens. */
  static boolean chunked(double tokens, int chunk) { return chunk > 0 && tokens > chunk; }

  /**
   * What the loss holds until the step ends (fp32, bytes): over the whole sequence the logits and log-softmax's output;
   * over chunks the hidden states' gradient [tokens, hidden] (each chunk's logits are freed with its chunk).
   */
  static double lossHeld(double tokens, double vocab, double hidden, int chunk) {
    return chunked(tokens, chunk) ? 4 * tokens * hidden : 2 * 4 * tokens * vocab;
  }

  /**
   * What the loss adds for a moment (fp32, bytes): the whole logits' two gradients at the backward's start, or one
   * chunk's logits, turned in place into its softmax and gradient.
   */
  static double lossTransient(double tokens, double vocab, int chunk) {
    return chunked(tokens, chunk) ? 4 * chunk * vocab : 2 * 4 * tokens * vocab;
  }

  /**
   * Bytes per weight of a frozen (LoRA) base's token embedding and output head: 16 bits where {@link TrainingSpec#holdsTablesIn16Bits} (a
   * compressed base on one unsplit rank: FrozenBase.table), else fp32 as loaded. The one place the plan says so.
   */
  static double frozenEmbeddingBytesPerWeight(TrainingSpec spec) {
    return spec.holdsTablesIn16Bits() ? 2 : 4;
  }

  /**
   * Bytes per frozen projection weight under {@code train.lora.quantize}: NF4's 4 bits and an fp32 absmax per 64 (nested:
   * an 8-bit absmax per 64 and an fp32 scale per 256 of those).
   */
  static double baseBytesPerWeight(String quantize) {
    return switch (quantize) {
      case "nf4" -> 0.5 + 4.0 / 64;
      case "nf4-dq" -> 0.5 + (1 + 4.0 / 256) / 64;
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
