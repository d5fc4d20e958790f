package dev.weft.models.decoder;

import dev.weft.data.PackedDocuments;
import dev.weft.models.CausalLm;
import dev.weft.models.KvCache;
import dev.weft.models.LayerPartition;
import dev.weft.models.Layers;
import dev.weft.models.Parameters;
import dev.weft.models.StagedModel;
import dev.weft.models.moe.RouterLosses;
import dev.weft.models.moe.RouterPool;
import dev.weft.models.moe.StageRouterLink;
import org.bytedeco.pytorch.GradMode;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;
import org.bytedeco.pytorch.global.torch.ScalarType;

/**
 * The one decoder every family builds: token embedding (plus learned positions when the config has
 * no RoPE), pre-norm {@link DecoderLayer}s, final norm, LM head (optionally tied to the embedding).
 * It holds the stage and chunk plumbing once: this pipeline rank builds only its chunks' layers, the
 * embedding on the first virtual stage and norm + head on the last. Parameters carry the family's
 * Hugging Face names. Like every model it knows nothing of parallelism.
 */
public final class Decoder implements StagedModel, CausalLm {
  private final DecoderConfig cfg;
  private final Layers layers;
  private final LayerPartition partition;
  private final int stage;
  private final Layers.Embedding embed;
  private final Layers.Embedding positions;
  private final List<List<DecoderLayer>> chunks = new ArrayList<>();
  private final Layers.Linear norm;
  private final Layers.LmHead head;
  private final RouterLosses router;
  private long[] stepLoad = new long[0];
  private StageRouterLink routerLink; // pipeline stages: where the router statistics of the other stages come from
  private RouterPool routerPool; // context parallelism: the ranks holding the rest of each sequence
  private boolean withoutRouterLosses;

  /** The whole model on one pipeline stage. */
  public Decoder(DecoderConfig cfg, DecoderNames names, Layers layers) {
    this(cfg, names, layers, LayerPartition.even(cfg.layers(), 1, 1), 0);
  }

  /** The part of the model pipeline rank {@code stage} holds. */
  public Decoder(DecoderConfig cfg, DecoderNames names, Layers layers, LayerPartition partition, int stage) {
    this(cfg, names, layers, partition, stage, 0);
  }

  /** The part of the model pipeline rank {@code stage} holds; {@code seed} draws the routers' initial weights. */
  public Decoder(DecoderConfig cfg, DecoderNames names, Layers layers, LayerPartition partition, int stage, long seed) {
    this.cfg = cfg;
    this.router = cfg.moe() == null ? null : new RouterLosses(cfg.moe().experts());
    this.layers = layers;
    this.partition = partition;
    this.stage = stage;
    double std = cfg.initStd();
    boolean first = partition.virtualStage(stage, 0) == 0;
    boolean last = partition.virtualStage(stage, partition.chunks() - 1) == partition.virtualStages() - 1;
    embed = first ? layers.embedding(names.embed(), cfg.vocab(), cfg.hidden(), std) : null;
    positions = first && cfg.rope() == null ? layers.positionEmbedding(names.positions(), cfg.seqLen(), cfg.hidden(), std) : null;
    Rotary rotary = cfg.rope() == null ? null : new Rotary(cfg.headDim(), cfg.rope(), Math.max(cfg.seqLen(), 256));
    for (int c = 0; c < partition.chunks(); c++) {
      int k = partition.virtualStage(stage, c);
      List<DecoderLayer> blocks = new ArrayList<>();
      for (int i = partition.start(k); i < partition.end(k); i++) blocks.add(new DecoderLayer(cfg, names, layers, rotary, i, seed, router));
      chunks.add(blocks);
    }
    norm = !last ? null : cfg.norm() == DecoderConfig.Norm.RMS ? layers.rmsNorm(names.finalNorm(), cfg.hidden(), cfg.normEps())
        : layers.layerNorm(names.finalNorm(), cfg.hidden());
    head = !last ? null : cfg.tied() ? layers.tiedLmHead(names.embed(), cfg.hidden(), cfg.vocab())
        : layers.lmHead(names.head(), cfg.hidden(), cfg.vocab(), std);
  }

  private dev.weft.models.LayerCheckpoint checkpoint; // null: layers keep their activations (or the executor recomputes)

  /**
   * Checkpoints every layer ({@code train.recompute} on one unsplit rank, {@link dev.weft.models.LayerCheckpoint}): the
   * step then keeps each layer's input and one layer's internals. Dense decoders only (a MoE router counts per call).
   */
  public void checkpointLayers() {
    if (router != null) throw new IllegalStateException("a MoE decoder's router counts each call; its layers are not checkpointed");
    checkpoint = new dev.weft.models.LayerCheckpoint();
  }

  /** Whether {@link #checkpointLayers} was called. */
  public boolean checkpointsLayers() { return checkpoint != null; }

  /** Embedding on the first virtual stage; the last virtual stage ends with the final norm. */
  @Override
  public Tensor forwardChunk(int chunk, Tensor input) { return forward(chunk, input, null, null); }

  /** Packed samples: positions restart and attention stays inside each document. */
  @Override
  public Tensor forwardChunk(int chunk, Tensor input, PackedDocuments documents) { return forward(chunk, input, null, documents); }

  private Tensor forward(int chunk, Tensor input, KvCache cache, PackedDocuments docs) {
    int k = partition.virtualStage(stage, chunk);
    if (router != null) router.clear(); // per chunk: a pipeline action's PointerScope frees the tensors of the one before
    Tensor x = k == 0 ? embed(input, cache == null ? 0 : cache.length(), docs) : input;
    for (DecoderLayer layer : chunks.get(chunk)) {
      if (checkpoint != null && cache == null) {
        Tensor next = checkpoint.run(x, in -> layer.forward(in, null, docs));
        if (x != input) x.close(); // the checkpoint keeps its own alias, freed as its backward passes
        x = next;
      } else {
        x = layer.forward(x, cache, docs);
      }
    }
    // this chunk's own routing, before a pipeline link or a cp pool adds other ranks' counts to the router's
    if (router != null && cache == null && GradMode.is_enabled()) addLoad(router.counts());
    if (k == partition.virtualStages() - 1) return norm.forward(x);
    return routerLink != null && cache == null && routerLossesOn() ? routerLink.handOn(x, router) : x;
  }

  private Tensor embed(Tensor ids, long start, PackedDocuments docs) {
    Tensor x = embed.forward(ids);
    if (positions == null) return x;
    if (docs != null) return x.add(positions.forward(docs.positions()));
    TensorOptions longs = new TensorOptions(ScalarType.Long).device(new org.bytedeco.pytorch.DeviceOptional(ids.device()));
    return x.add(positions.forward(torch.arange(new Scalar(start), new Scalar(start + ids.size(1)), longs)));
  }

  @Override
  public Tensor headLossSum(Tensor hidden, Tensor targets) {
    if (head == null) throw new IllegalStateException("pipeline stage " + stage + " does not hold the LM head");
    return withRouterLosses(head.lossSum(hidden, targets), targets);
  }

  private void addLoad(long[] counts) {
    if (stepLoad.length == 0) stepLoad = new long[counts.length];
    for (int e = 0; e < counts.length; e++) stepLoad[e] += counts[e];
  }

  @Override
  public Tensor lossSum(Tensor tokens, Tensor targets) {
    requireWhole();
    return headLossSum(forwardChunk(0, tokens), targets);
  }

  @Override
  public Tensor lossSum(Tensor tokens, Tensor targets, PackedDocuments documents) {
    requireWhole();
    return headLossSum(forwardChunk(0, tokens, documents), targets);
  }

  /**
   * Training (gradients on): the cross-entropy sum plus the routers' losses weighted by this batch's count of
   * targets, so that the loop's division by the global count gives transformers' mean loss + coef · aux per batch.
   * Evaluation sees the cross-entropy only, as transformers' default (output_router_logits false) does. Only a
   * decoder whole on one stage adds them, or the last stage once the link has pooled the stages' statistics.
   */
  private Tensor withRouterLosses(Tensor ceSum, Tensor targets) {
    if (!routerLossesOn() || (partition.virtualStages() != 1 && routerLink == null)) return ceSum;
    if (partition.virtualStages() != 1) routerLink.gather(router);
    if (routerPool != null) routerPool.pool(router);
    long count = dev.weft.models.Targets.count(targets);
    return ceSum.add(router.loss(cfg.moe().auxCoef(), cfg.moe().zCoef()).mul(new Scalar((double) count)));
  }

  private boolean routerLossesOn() { return router != null && !withoutRouterLosses && cfg.moe().routerLosses() && GradMode.is_enabled(); }

  /**
   * Training losses without the routers' (DPO: a sequence's log-probability is its cross-entropy alone, as TRL's
   * default for MoE models, output_router_logits off). The routing and its counts are unchanged.
   */
  public void dropRouterLosses() { withoutRouterLosses = true; }

  /**
   * Pipeline stages with router losses: the framework's link between the stages (one chunk per stage, every
   * training forward once per micro-batch in order, MoeRules says which schedules).
   */
  public void linkRouterLosses(StageRouterLink link) { this.routerLink = link; }

  /** Context parallelism with router losses: the framework's pool over the ranks that split each sequence. */
  public void poolRouterLosses(RouterPool pool) { this.routerPool = pool; }

  /** Token–expert assignments per expert of this stage's MoE layers in the last forward (empty: a dense model). */
  public long[] expertLoad() { return router == null ? new long[0] : router.counts(); }

  /**
   * Assignments per expert over the training forwards of this rank's chunks since the last call, summed over their
   * MoE layers (this rank's tokens only: other stages', cp ranks' and dp ranks' are theirs); empty for a dense model.
   */
  public long[] takeStepLoad() {
    long[] out = stepLoad;
    stepLoad = new long[0];
    return out;
  }

  /** Logits with a KV cache; learned positions end at data.seqLen, rotary ones do not. */
  @Override
  public Tensor logits(Tensor tokens, KvCache cache) {
    requireWhole();
    long end = (cache == null ? 0 : cache.length()) + tokens.size(1);
    if (positions != null && end > cfg.seqLen()) {
      throw new IllegalArgumentException("position " + end + " is beyond the model's context of " + cfg.seqLen() + " tokens");
    }
    Tensor h = forward(0, tokens, cache, null);
    if (cache != null) cache.advance(tokens.size(1));
    return head.logits(h);
  }

  private void requireWhole() {
    if (partition.virtualStages() != 1) throw new IllegalStateException("this decoder is split into pipeline stages; run the stages");
  }

  @Override public long[] stopTokens() { return cfg.eos().stream().mapToLong(Long::longValue).toArray(); }
  @Override public KvCache newCache() { return new KvCache(cfg.layers()); }
  @Override public int vocabSize() { return cfg.vocab(); }
  @Override public LayerPartition partition() { return partition; }
  @Override public long[] activationShape(int microBatchSize, int seqPerRank) { return new long[] {microBatchSize, seqPerRank, cfg.hidden()}; }
  @Override public Parameters parameters() { return layers.parameters(); }
  @Override public Layers layers() { return layers; }
  @Override public double trainingFlopsPerToken() { return cfg.trainingFlopsPerToken(); }
  public DecoderConfig config() { return cfg; }
}
